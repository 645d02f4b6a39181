// Masked attention paths (explicit, fused where LibTorch has it, naive reference) and the
// device / precision / thread options.
#include "models/nn/attention.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <string>

#include "core/error.h"
#include "models/nn/device.h"
#include "models/nn/masks.h"
#include "models/nn/torch_compat.h"
#include "models/nn/transformer.h"

namespace unieval::models {
namespace {

// Plain double-precision loops: out[b,h,i] = Σ_j softmax_j(q·k/√d + bias) v[j].
torch::Tensor naive_attention(const torch::Tensor& q, const torch::Tensor& k,
                              const torch::Tensor& v, const torch::Tensor& bias) {
  auto qd = q.to(torch::kDouble), kd = k.to(torch::kDouble), vd = v.to(torch::kDouble);
  const int64_t B = q.size(0), H = q.size(1), Tq = q.size(2), Tk = k.size(2), D = q.size(3);
  auto bd = bias.defined() ? bias.to(torch::kDouble).expand({B, H, Tq, Tk}).contiguous()
                           : torch::zeros({B, H, Tq, Tk}, torch::kDouble);
  auto qa = qd.accessor<double, 4>(), ka = kd.accessor<double, 4>(), va = vd.accessor<double, 4>();
  auto ba = bd.accessor<double, 4>();
  auto out = torch::zeros({B, H, Tq, D}, torch::kDouble);
  auto oa = out.accessor<double, 4>();
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t i = 0; i < Tq; ++i) {
        std::vector<double> s(Tk);
        double mx = -INFINITY;
        for (int64_t j = 0; j < Tk; ++j) {
          double dot = 0;
          for (int64_t d = 0; d < D; ++d) dot += qa[b][h][i][d] * ka[b][h][j][d];
          s[j] = dot / std::sqrt(static_cast<double>(D)) + ba[b][h][i][j];
          mx = std::max(mx, s[j]);
        }
        double z = 0;
        for (auto& x : s) z += (x = std::exp(x - mx));
        for (int64_t j = 0; j < Tk; ++j)
          for (int64_t d = 0; d < D; ++d) oa[b][h][i][d] += s[j] / z * va[b][h][j][d];
      }
  return out;
}

double max_abs_diff(const torch::Tensor& a, const torch::Tensor& b) {
  return (a.to(torch::kDouble) - b.to(torch::kDouble)).abs().max().item<double>();
}

struct Inputs {
  torch::Tensor q, k, v, bias;
};

Inputs make_inputs(uint64_t seed, MaskKind kind) {
  torch::manual_seed(seed);
  Inputs in;
  in.q = torch::randn({3, 4, 7, 8}) * 2.0;
  in.k = torch::randn({3, 4, 7, 8}) * 2.0;
  in.v = torch::randn({3, 4, 7, 8});
  auto m = build_mask(
      kind, {7, 5, 6}, 7,
      kind == MaskKind::kSeq2Seq ? std::vector<int64_t>{3, 2, 6} : std::vector<int64_t>{});
  in.bias = additive_attention_mask(m, torch::kFloat);  // [B,1,T,T]
  return in;
}

TEST(AttentionTest, ExplicitMatchesNaiveReference) {
  for (auto kind : {MaskKind::kBidirectional, MaskKind::kLeftToRight, MaskKind::kRightToLeft,
                    MaskKind::kSeq2Seq}) {
    auto in = make_inputs(11, kind);
    auto got = attention(in.q, in.k, in.v, in.bias, 0.0, false, AttentionPath::kExplicit);
    EXPECT_LE(max_abs_diff(got, naive_attention(in.q, in.k, in.v, in.bias)), 1e-5)
        << to_string(kind);
  }
  auto in = make_inputs(12, MaskKind::kBidirectional);
  EXPECT_LE(max_abs_diff(attention(in.q, in.k, in.v, {}, 0.0, false, AttentionPath::kExplicit),
                         naive_attention(in.q, in.k, in.v, {})),
            1e-5);
}

TEST(AttentionTest, AutoPathMatchesNaiveReference) {
  auto in = make_inputs(13, MaskKind::kSeq2Seq);
  EXPECT_LE(max_abs_diff(attention(in.q, in.k, in.v, in.bias),
                         naive_attention(in.q, in.k, in.v, in.bias)),
            1e-5);
  // Cached decoding shape: 2 queries against 9 keys.
  auto q = in.q.slice(2, 0, 2);
  auto k = torch::cat({in.k, in.k.slice(2, 0, 2)}, 2);
  auto v = torch::cat({in.v, in.v.slice(2, 0, 2)}, 2);
  auto m = torch::ones({3, 2, 9}, torch::kLong);
  m.select(2, 8).select(1, 0).fill_(0);
  auto bias = additive_attention_mask(m, torch::kFloat);
  EXPECT_LE(max_abs_diff(attention(q, k, v, bias), naive_attention(q, k, v, bias)), 1e-5);
}

TEST(AttentionTest, FusedMatchesExplicitWhereAvailable) {
  if (!fused_attention_available()) {
    EXPECT_THROW(attention(torch::zeros({1, 1, 1, 2}), torch::zeros({1, 1, 1, 2}),
                           torch::zeros({1, 1, 1, 2}), {}, 0.0, false, AttentionPath::kFused),
                 InputError);
    EXPECT_EQ(attention_path_name(), "explicit");
    GTEST_SKIP() << "LibTorch " << compat::torch_version()
                 << " has no fused scaled_dot_product_attention; explicit path checked above";
  }
  for (auto kind : {MaskKind::kBidirectional, MaskKind::kLeftToRight, MaskKind::kSeq2Seq}) {
    auto in = make_inputs(14, kind);
    auto fused = attention(in.q, in.k, in.v, in.bias, 0.0, false, AttentionPath::kFused);
    auto expl = attention(in.q, in.k, in.v, in.bias, 0.0, false, AttentionPath::kExplicit);
    EXPECT_LE(max_abs_diff(fused, expl), 1e-5) << to_string(kind);
  }
}

TEST(AttentionTest, FullyMaskedRowIsUniformNotNan) {
  // HF's finfo.min bias: a row with every key masked averages the values instead of NaN.
  auto q = torch::randn({1, 1, 2, 4}), k = torch::randn({1, 1, 3, 4}),
       v = torch::randn({1, 1, 3, 4});
  auto m = torch::tensor({{{1, 1, 0}, {0, 0, 0}}}, torch::kLong);
  auto out = attention(q, k, v, additive_attention_mask(m, torch::kFloat));
  EXPECT_FALSE(out.isnan().any().item<bool>());
  EXPECT_LE(max_abs_diff(out[0][0][1], v[0][0].mean(0)), 1e-6);
}

TEST(AttentionTest, DecodingStepProductsEqualBmm) {
  // A beam step's 1-3 query positions against a preallocated cache (k, v: narrowed buffers; q: a
  // permuted projection) take the per-(batch, head) loops; torch::matmul is the reference. With
  // OpenBLAS's Haswell/Zen kernels (this project's machines) they are bit-equal; any BLAS keeps
  // them within float rounding.
  torch::NoGradGuard no_grad;
  torch::manual_seed(4);
  int cases = 0, bit_equal = 0;
  for (int64_t d : {16, 32, 64})
    for (int64_t tq : {1, 2, 3, 4, 8})
      for (int64_t t : {1, 5, 8, 17, 25, 64, 130}) {
        const int64_t B = 3, H = 2;
        auto x = torch::randn({B, tq, H * d});
        auto q = x.view({B, tq, H, d}).permute({0, 2, 1, 3});
        auto kbuf = torch::randn({B, H, t + 7, d}), vbuf = torch::randn({B, H, t + 7, d});
        auto k = kbuf.narrow(2, 0, t), v = vbuf.narrow(2, 0, t);
        auto bias = additive_attention_mask((torch::rand({B, tq, t}) > 0.2).to(torch::kLong),
                                            torch::kFloat);
        auto scores =
            torch::matmul(q, k.transpose(-1, -2)) / std::sqrt(static_cast<double>(d)) + bias;
        auto expected = torch::matmul(torch::softmax(scores, -1), v);
        auto got = attention(q, k, v, bias, 0.1, /*training=*/false, AttentionPath::kExplicit);
        ASSERT_EQ(got.sizes(), expected.sizes());
        EXPECT_TRUE(torch::allclose(got, expected, 1e-5, 1e-6))
            << "d " << d << " tq " << tq << " t " << t;
        bit_equal += torch::equal(got, expected);
        ++cases;
      }
  EXPECT_EQ(cases, 105);
  RecordProperty("bit_equal_cases", bit_equal);
  std::cout << bit_equal << " of " << cases << " shapes bit-equal to torch::matmul\n";
  // Bit equality is asserted where it was established: OpenBLAS with its Haswell/Zen kernels.
  using CoreName = char* (*)();
  auto corename = reinterpret_cast<CoreName>(dlsym(RTLD_DEFAULT, "openblas_get_corename"));
  const std::string core = corename ? corename() : "";
  if (core == "Zen" || core == "Haswell") {
    EXPECT_EQ(bit_equal, cases) << "OpenBLAS core " << core;
  }
}

TEST(AttentionTest, DropoutOnlyWhenTraining) {
  auto in = make_inputs(15, MaskKind::kBidirectional);
  auto eval = attention(in.q, in.k, in.v, in.bias, 0.5, /*training=*/false);
  EXPECT_LE(max_abs_diff(eval, attention(in.q, in.k, in.v, in.bias)), 0.0);
  torch::manual_seed(1);
  auto train = attention(in.q, in.k, in.v, in.bias, 0.5, /*training=*/true);
  EXPECT_GT(max_abs_diff(eval, train), 1e-3);
}

TEST(AttentionTest, AdditiveMaskIsHfExtendedMask) {
  auto m2 = torch::tensor({{1, 0}}, torch::kLong);
  auto b2 = additive_attention_mask(m2, torch::kFloat);
  ASSERT_EQ(b2.sizes(), (std::vector<int64_t>{1, 1, 1, 2}));
  EXPECT_EQ(b2[0][0][0][0].item<float>(), 0.0f);
  EXPECT_EQ(b2[0][0][0][1].item<float>(), std::numeric_limits<float>::lowest());
  auto b3 = additive_attention_mask(torch::ones({2, 3, 3}, torch::kBool), torch::kFloat);
  EXPECT_EQ(b3.sizes(), (std::vector<int64_t>{2, 1, 3, 3}));
  EXPECT_THROW(additive_attention_mask(torch::ones({2}), torch::kFloat), InputError);
}

// ---- device.h ----

TEST(DeviceTest, ParsesDevicesAndFailsClearlyWithoutCuda) {
  EXPECT_TRUE(parse_device("cpu").is_cpu());
  EXPECT_THROW(parse_device("gpu"), InputError);
  EXPECT_THROW(parse_device("cuda:x"), InputError);
  EXPECT_THROW(parse_device("cuda:"), InputError);
  if (!cuda_available()) {
    try {
      parse_device("cuda");
      ADD_FAILURE() << "cuda accepted without CUDA";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("CUDA is not available"), std::string::npos) << e.what();
    }
    DeviceOptions opt;
    opt.device = "cuda";
    EXPECT_THROW(configure_runtime(opt), InputError);
  } else {
    EXPECT_TRUE(parse_device("cuda").is_cuda());
    EXPECT_EQ(resolve_precision(Precision::kAuto, parse_device("cuda")), Precision::kBFloat16);
  }
}

TEST(DeviceTest, PrecisionAndThreads) {
  EXPECT_EQ(parse_precision("bf16"), Precision::kBFloat16);
  EXPECT_EQ(parse_precision("half"), Precision::kFloat16);
  EXPECT_EQ(parse_precision(to_string(Precision::kFloat32)), Precision::kFloat32);
  EXPECT_THROW(parse_precision("int8"), InputError);
  const torch::Device cpu(torch::kCPU);
  EXPECT_EQ(resolve_precision(Precision::kAuto, cpu), Precision::kFloat32);
  EXPECT_THROW(resolve_precision(Precision::kFloat16, cpu), InputError);
  EXPECT_THROW(set_threads(-1), InputError);
  DeviceOptions opt;
  opt.threads = 1;
  auto rt = configure_runtime(opt);
  EXPECT_EQ(torch::get_num_threads(), 1);
  EXPECT_EQ(rt.compute_dtype(), torch::kFloat);
  EXPECT_NE(rt.describe().find("cpu fp32"), std::string::npos) << rt.describe();
  {
    AutocastScope scope(rt);  // fp32 on CPU: no autocast
    EXPECT_FALSE(compat::cuda_autocast_enabled());
  }
}

}  // namespace
}  // namespace unieval::models
