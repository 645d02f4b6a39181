// The linear-layer product paths (models/nn/gemm.h): oneDNN's dnnl_sgemm against torch::linear
// for values and all three gradients, a whole model's loss and gradients under both paths, the
// path's scope (CPU fp32 only) and its record in the run provenance.
#include "models/nn/gemm.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/error.h"
#include "models/nn/device.h"
#include "models/nn/transformer.h"

namespace unieval::models {
namespace {

// Restores the process-wide path when a test ends.
struct GemmPathGuard {
  GemmPath saved = gemm_path();
  ~GemmPathGuard() { set_gemm_path(saved); }
};

#define SKIP_WITHOUT_ONEDNN()                                              \
  if (!onednn_gemm_available())                                            \
  GTEST_SKIP() << "this process has no dnnl_sgemm (LibTorch links oneDNN " \
                  "statically or not at all)"

double max_rel_diff(const torch::Tensor& a, const torch::Tensor& b) {
  return ((a - b).abs().max() / b.abs().max().clamp_min(1e-12)).item<double>();
}

struct LinearGrads {
  torch::Tensor y, dx, dw, db;
};

// y, then dL/dx, dL/dW, dL/db for L = Σ y ⊙ r (r fixed), by the current path.
LinearGrads run_linear(const torch::Tensor& x0, const torch::Tensor& w0, const torch::Tensor& b0,
                       const torch::Tensor& r) {
  auto x = x0.clone().requires_grad_(true);
  auto w = w0.clone().requires_grad_(true);
  torch::Tensor b = b0.defined() ? b0.clone().requires_grad_(true) : torch::Tensor();
  auto y = linear(x, w, b);
  (y * r).sum().backward();
  return {y.detach(), x.grad(), w.grad(), b.defined() ? b.grad() : torch::Tensor()};
}

TEST(GemmTest, ParsesPathsAndRefusesUnknownOnes) {
  EXPECT_EQ(parse_gemm_path("libtorch"), GemmPath::kLibTorch);
  EXPECT_EQ(parse_gemm_path("onednn"), GemmPath::kOneDnn);
  EXPECT_EQ(to_string(GemmPath::kOneDnn), "onednn");
  EXPECT_EQ(to_string(GemmPath::kLibTorch), "libtorch");
  try {
    parse_gemm_path("mkl");
    FAIL() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("mkl"), std::string::npos) << e.what();
  }
}

TEST(GemmTest, OneDnnLinearMatchesLibTorchValuesAndGradients) {
  SKIP_WITHOUT_ONEDNN();
  GemmPathGuard guard;
  torch::manual_seed(3);
  // A 3-D activation as the encoder passes it, with and without bias, and a 2-D one whose rows
  // are not a multiple of any kernel's block.
  for (const std::vector<int64_t>& shape :
       {std::vector<int64_t>{4, 37, 64}, std::vector<int64_t>{53, 64}}) {
    for (const bool with_bias : {true, false}) {
      const auto x = torch::randn(shape);
      const auto w = torch::randn({96, 64}) * 0.1;
      const auto b = with_bias ? torch::randn({96}) : torch::Tensor();
      auto out_shape = shape;
      out_shape.back() = 96;
      const auto r = torch::randn(out_shape);
      set_gemm_path(GemmPath::kLibTorch);
      const LinearGrads ref = run_linear(x, w, b, r);
      set_gemm_path(GemmPath::kOneDnn);
      const LinearGrads got = run_linear(x, w, b, r);
      ASSERT_EQ(got.y.sizes(), ref.y.sizes());
      ASSERT_EQ(got.dx.sizes(), ref.dx.sizes());
      EXPECT_LT(max_rel_diff(got.y, ref.y), 1e-5);
      EXPECT_LT(max_rel_diff(got.dx, ref.dx), 1e-5);
      EXPECT_LT(max_rel_diff(got.dw, ref.dw), 1e-5);
      if (with_bias) {
        EXPECT_LT(max_rel_diff(got.db, ref.db), 1e-5);
      } else {
        EXPECT_FALSE(got.db.defined());
      }
      // Not the same computation: a product that ignored its inputs would fail the values above;
      // one that is right must also be repeatable bit for bit.
      const LinearGrads again = run_linear(x, w, b, r);
      EXPECT_TRUE(torch::equal(again.y, got.y));
      EXPECT_TRUE(torch::equal(again.dw, got.dw));
    }
  }
}

TEST(GemmTest, EmptyBatchGivesEmptyOutputAndZeroWeightGradient) {
  SKIP_WITHOUT_ONEDNN();
  GemmPathGuard guard;
  set_gemm_path(GemmPath::kOneDnn);
  const auto x = torch::zeros({0, 8});
  const auto w = torch::randn({5, 8});
  const auto b = torch::randn({5});
  const LinearGrads got = run_linear(x, w, b, torch::zeros({0, 5}));
  EXPECT_EQ(got.y.sizes(), (std::vector<int64_t>{0, 5}));
  EXPECT_TRUE(torch::equal(got.dw, torch::zeros({5, 8})));
  EXPECT_TRUE(torch::equal(got.db, torch::zeros({5})));
}

TEST(GemmTest, OtherTensorsKeepLibTorch) {
  SKIP_WITHOUT_ONEDNN();
  GemmPathGuard guard;
  set_gemm_path(GemmPath::kOneDnn);
  // Double precision is not oneDNN's sgemm: the result is torch::linear's, to the bit.
  const auto x = torch::randn({6, 4}, torch::kDouble);
  const auto w = torch::randn({3, 4}, torch::kDouble);
  EXPECT_TRUE(torch::equal(linear(x, w, torch::Tensor()), torch::nn::functional::linear(x, w)));
}

// A 2-layer model's masked-LM loss and its gradients: the same to rounding under both paths,
// so a run may change path on resume without changing what it learns.
TEST(GemmTest, ModelLossAndGradientsAgreeAcrossPaths) {
  SKIP_WITHOUT_ONEDNN();
  GemmPathGuard guard;
  const BertConfig cfg = BertConfig::tiny(300, /*dropout=*/0.0);
  torch::manual_seed(5);
  UnilmHeads heads;
  UnilmModel model(cfg, heads);
  const auto ids = torch::randint(5, 300, {3, 20}, torch::kLong);
  const auto labels = torch::randint(5, 300, {3 * 20}, torch::kLong);
  auto loss_and_grads = [&](GemmPath path) {
    set_gemm_path(path);
    model->zero_grad();
    auto out = model->forward(ids, torch::zeros_like(ids), torch::ones_like(ids));
    auto logits = model->mlm_logits(out.last_hidden_state).view({-1, cfg.vocab_size});
    auto loss = torch::nn::functional::cross_entropy(logits, labels);
    loss.backward();
    std::vector<torch::Tensor> grads;
    for (const auto& p : model->parameters())
      if (p.grad().defined()) grads.push_back(p.grad().clone());
    return std::make_pair(loss.item<double>(), grads);
  };
  const auto [ref_loss, ref_grads] = loss_and_grads(GemmPath::kLibTorch);
  const auto [got_loss, got_grads] = loss_and_grads(GemmPath::kOneDnn);
  EXPECT_NEAR(got_loss, ref_loss, 1e-5 * std::abs(ref_loss));
  ASSERT_EQ(got_grads.size(), ref_grads.size());
  ASSERT_GT(ref_grads.size(), 20u);  // every weight of both layers, embeddings and heads
  // Relative to each parameter's largest gradient, with a floor: the key projections' biases
  // have gradients that are zero but for rounding (softmax ignores a score added to a whole row).
  for (size_t i = 0; i < ref_grads.size(); ++i) {
    const double scale = std::max(ref_grads[i].abs().max().item<double>(), 1e-3);
    EXPECT_LT((got_grads[i] - ref_grads[i]).abs().max().item<double>(), 1e-4 * scale)
        << "parameter " << i;
  }
}

TEST(GemmTest, RuntimeAppliesThePathAndRecordsIt) {
  SKIP_WITHOUT_ONEDNN();
  GemmPathGuard guard;
  DeviceOptions opt;
  opt.gemm = "onednn";
  Runtime rt = configure_runtime(opt);
  EXPECT_EQ(gemm_path(), GemmPath::kOneDnn);
  EXPECT_NE(rt.describe().find(", GEMM oneDNN"), std::string::npos) << rt.describe();
  opt.gemm = "libtorch";
  rt = configure_runtime(opt);
  EXPECT_EQ(gemm_path(), GemmPath::kLibTorch);
  EXPECT_EQ(rt.describe().find("GEMM"), std::string::npos) << rt.describe();
  opt.gemm = "blas";
  EXPECT_THROW(configure_runtime(opt), InputError);
}

}  // namespace
}  // namespace unieval::models
