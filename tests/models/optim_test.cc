// Optimizers against LibTorch's own (AdamW, Adam) and a hand-computed Adamax; schedule; clipping;
// state round trip.
#include "models/training/optim.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"

namespace unieval::models {
namespace {

struct Params {
  torch::Tensor w, b;
};

Params make_params() {
  torch::manual_seed(7);
  return {torch::randn({4, 3}).requires_grad_(), torch::randn({3}).requires_grad_()};
}

// A fixed differentiable loss of the parameters.
torch::Tensor loss_of(const Params& p, int step) {
  torch::manual_seed(100 + step);
  torch::Tensor x = torch::randn({5, 4});
  return ((x.matmul(p.w) + p.b).tanh().pow(2)).sum();
}

TEST(OptimizerTest, AdamWMatchesTorchAdamWWithDecayExclusion) {
  Params mine = make_params(), ref = make_params();
  OptimizerOptions o;
  o.lr = 0.01;
  o.eps = 1e-8;
  o.weight_decay = 0.1;
  Optimizer opt({{"layer.dense.weight", mine.w}, {"layer.dense.bias", mine.b}}, o);
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(std::vector<torch::Tensor>{ref.w},
                      std::make_unique<torch::optim::AdamWOptions>(
                          torch::optim::AdamWOptions(0.01).eps(1e-8).weight_decay(0.1)));
  groups.emplace_back(std::vector<torch::Tensor>{ref.b},
                      std::make_unique<torch::optim::AdamWOptions>(
                          torch::optim::AdamWOptions(0.01).eps(1e-8).weight_decay(0.0)));
  torch::optim::AdamW torch_opt(std::move(groups));
  for (int s = 0; s < 5; ++s) {
    opt.zero_grad();
    loss_of(mine, s).backward();
    opt.step(0.01);
    torch_opt.zero_grad();
    loss_of(ref, s).backward();
    torch_opt.step();
  }
  EXPECT_TRUE(torch::allclose(mine.w, ref.w, 1e-5, 1e-6));
  EXPECT_TRUE(torch::allclose(mine.b, ref.b, 1e-5, 1e-6));
}

TEST(OptimizerTest, AdamMatchesTorchAdam) {
  Params mine = make_params(), ref = make_params();
  OptimizerOptions o;
  o.kind = OptimizerKind::kAdam;
  o.lr = 0.02;
  o.eps = 1e-8;
  o.weight_decay = 0.05;
  Optimizer opt({{"w", mine.w}, {"LayerNorm.weight", mine.b}}, o);
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(std::vector<torch::Tensor>{ref.w},
                      std::make_unique<torch::optim::AdamOptions>(
                          torch::optim::AdamOptions(0.02).eps(1e-8).weight_decay(0.05)));
  groups.emplace_back(std::vector<torch::Tensor>{ref.b},
                      std::make_unique<torch::optim::AdamOptions>(
                          torch::optim::AdamOptions(0.02).eps(1e-8).weight_decay(0.0)));
  torch::optim::Adam torch_opt(std::move(groups));
  for (int s = 0; s < 4; ++s) {
    opt.zero_grad();
    loss_of(mine, s).backward();
    opt.step(0.02);
    torch_opt.zero_grad();
    loss_of(ref, s).backward();
    torch_opt.step();
  }
  EXPECT_TRUE(torch::allclose(mine.w, ref.w, 1e-5, 1e-6));
  EXPECT_TRUE(torch::allclose(mine.b, ref.b, 1e-5, 1e-6));
}

TEST(OptimizerTest, AdamaxFollowsTorchAdamaxRule) {
  // One parameter, hand-computed torch.optim.Adamax in double.
  torch::Tensor p = torch::tensor({1.0, -2.0}, torch::kDouble).requires_grad_();
  OptimizerOptions o;
  o.kind = OptimizerKind::kAdamax;
  o.lr = 0.1;
  o.eps = 1e-8;
  o.weight_decay = 0.0;
  Optimizer opt({{"w", p}}, o);
  double x[2] = {1.0, -2.0}, m[2] = {0, 0}, u[2] = {0, 0};
  for (int t = 1; t <= 3; ++t) {
    opt.zero_grad();
    (p.pow(3)).sum().backward();  // g = 3 p^2
    opt.step(0.1);
    for (int i = 0; i < 2; ++i) {
      const double g = 3 * x[i] * x[i];
      m[i] = 0.9 * m[i] + 0.1 * g;
      u[i] = std::max(0.999 * u[i], std::abs(g) + 1e-8);
      x[i] -= 0.1 / (1 - std::pow(0.9, t)) * m[i] / u[i];
    }
  }
  EXPECT_NEAR(p[0].item<double>(), x[0], 1e-12);
  EXPECT_NEAR(p[1].item<double>(), x[1], 1e-12);
}

TEST(OptimizerTest, FusedCpuStepEqualsTensorOpsUpToFloatRounding) {
  // float32 CPU parameters take the one-pass kernel (parallel chunks, a 4-wide body and a scalar
  // tail: 100003 elements); the same parameters in float64 take the tensor-op form.
  for (OptimizerKind kind : {OptimizerKind::kAdamW, OptimizerKind::kAdam}) {
    torch::manual_seed(21);
    torch::Tensor w32 = torch::randn({100003}).requires_grad_(),
                  b32 = torch::randn({7}).requires_grad_();
    torch::Tensor w64 = w32.detach().to(torch::kDouble).requires_grad_();
    torch::Tensor b64 = b32.detach().to(torch::kDouble).requires_grad_();
    OptimizerOptions o;
    o.kind = kind;
    o.lr = 0.01;
    o.weight_decay = 0.1;
    Optimizer f({{"dense.weight", w32}, {"dense.bias", b32}}, o),
        d({{"dense.weight", w64}, {"dense.bias", b64}}, o);
    for (int s = 0; s < 3; ++s) {
      torch::manual_seed(300 + s);
      torch::Tensor gw = torch::randn({100003}), gb = torch::randn({7});
      f.zero_grad();
      d.zero_grad();
      w32.mutable_grad() = gw.clone();
      b32.mutable_grad() = gb.clone();
      w64.mutable_grad() = gw.to(torch::kDouble);
      b64.mutable_grad() = gb.to(torch::kDouble);
      f.step(0.01);
      d.step(0.01);
    }
    EXPECT_TRUE(torch::allclose(w32.to(torch::kDouble), w64, 1e-5, 1e-6)) << to_string(kind);
    EXPECT_TRUE(torch::allclose(b32.to(torch::kDouble), b64, 1e-5, 1e-6)) << to_string(kind);
    EXPECT_GT((w32.to(torch::kDouble) - w64).abs().max().item<double>(),
              0.0);  // it did run in float
  }
}

// The multi-tensor (_foreach_*) form CUDA takes, forced on the CPU: on float64 parameters (which
// the per-parameter tensor ops update otherwise) it gives the same bits, with and without weight
// decay, a parameter without a gradient skipped; on float32 it agrees with the fused kernel up to
// float rounding.
TEST(OptimizerTest, MultiTensorFormEqualsPerParameterForm) {
  for (OptimizerKind kind : {OptimizerKind::kAdamW, OptimizerKind::kAdam}) {
    for (torch::ScalarType dtype : {torch::kDouble, torch::kFloat}) {
      torch::manual_seed(23);
      const std::vector<std::string> names{"dense.weight", "dense.bias", "LayerNorm.weight",
                                           "idle.weight"};
      const std::vector<std::vector<int64_t>> shapes{{33, 17}, {17}, {17}, {5}};
      std::vector<torch::Tensor> a, b;
      NamedTensors na, nb;
      for (size_t k = 0; k < names.size(); ++k) {
        a.push_back(torch::randn(shapes[k], torch::kDouble).to(dtype).requires_grad_());
        b.push_back(a.back().detach().clone().requires_grad_());
        na.emplace_back(names[k], a.back());
        nb.emplace_back(names[k], b.back());
      }
      OptimizerOptions o;
      o.kind = kind;
      o.weight_decay = 0.05;
      Optimizer multi(na, o), plain(nb, o);
      multi.set_multi_tensor(true);
      for (int s = 0; s < 4; ++s) {
        multi.zero_grad();
        plain.zero_grad();
        for (size_t k = 0; k + 1 < names.size(); ++k) {  // "idle" never gets a gradient
          torch::Tensor g = torch::randn(shapes[k], torch::kDouble).to(dtype);
          a[k].mutable_grad() = g.clone();
          b[k].mutable_grad() = g.clone();
        }
        multi.step(0.01);
        plain.step(0.01);
      }
      for (size_t k = 0; k < names.size(); ++k) {
        SCOPED_TRACE(to_string(kind) + " " + std::string(c10::toString(dtype)) + " " + names[k]);
        if (dtype == torch::kDouble) {
          EXPECT_TRUE(torch::equal(a[k], b[k])) << (a[k] - b[k]).abs().max().item<double>();
        } else {
          EXPECT_TRUE(torch::allclose(a[k], b[k], 1e-5, 1e-6))
              << (a[k] - b[k]).abs().max().item<double>();
        }
        EXPECT_FALSE(torch::equal(a[k], b[k].detach().clone().zero_()));
      }
      EXPECT_TRUE(torch::equal(a.back(), b.back()));  // untouched on both sides
      if (dtype == torch::kFloat) {  // the fused kernel rounds differently: the forced form did run
        EXPECT_GT((a[0] - b[0]).abs().max().item<double>(), 0.0);
      }
      const auto sa = multi.state_dict(), sb = plain.state_dict();
      for (const auto& [name, t] : sa) {
        if (name != "step") {
          EXPECT_TRUE(torch::allclose(t, sb.at(name), 1e-5, 1e-7)) << name;
        }
      }
    }
  }
}

// On a GPU (skipped without one): AdamW's multi-tensor step and the multi-tensor clipping on CUDA
// agree with the float64 CPU tensor ops up to float rounding.
TEST(OptimizerTest, CudaStepAndClippingMatchTheCpu) {
  if (!torch::cuda::is_available())
    GTEST_SKIP() << "no CUDA device here (ci/gpu/checks runs this on a lent GPU)";
  torch::manual_seed(29);
  const std::vector<std::string> names{"dense.weight", "dense.bias", "LayerNorm.weight"};
  const std::vector<std::vector<int64_t>> shapes{{257, 31}, {31}, {31}};
  std::vector<torch::Tensor> gpu, cpu;
  NamedTensors ng, nc;
  for (size_t k = 0; k < names.size(); ++k) {
    cpu.push_back(torch::randn(shapes[k], torch::kDouble).requires_grad_());
    gpu.push_back(cpu.back().detach().to(torch::kCUDA, torch::kFloat).requires_grad_());
    nc.emplace_back(names[k], cpu.back());
    ng.emplace_back(names[k], gpu.back());
  }
  OptimizerOptions o;
  o.weight_decay = 0.01;
  Optimizer og(ng, o), oc(nc, o);
  for (int s = 0; s < 3; ++s) {
    og.zero_grad();
    oc.zero_grad();
    for (size_t k = 0; k < names.size(); ++k) {
      torch::Tensor g = torch::randn(shapes[k], torch::kDouble) * 3;
      cpu[k].mutable_grad() = g.clone();
      gpu[k].mutable_grad() = g.to(torch::kCUDA, torch::kFloat);
    }
    const double ng_norm = clip_grad_norm(og.params(), 1.0),
                 nc_norm = clip_grad_norm(oc.params(), 1.0);
    EXPECT_NEAR(ng_norm, nc_norm, 1e-4 * nc_norm);
    og.step(0.01);
    oc.step(0.01);
  }
  for (size_t k = 0; k < names.size(); ++k)
    EXPECT_TRUE(torch::allclose(gpu[k].cpu().to(torch::kDouble), cpu[k], 1e-5, 1e-6)) << names[k];
}

TEST(OptimizerTest, ZeroGradDropsGradientsAndStepSkipsParametersWithout) {
  Params a = make_params();
  OptimizerOptions o;
  o.lr = 0.01;
  Optimizer opt({{"w", a.w}, {"bias", a.b}}, o);
  loss_of(a, 0).backward();
  opt.step(0.01);
  opt.zero_grad();
  EXPECT_FALSE(a.w.grad().defined());
  EXPECT_FALSE(a.b.grad().defined());
  // Only w gets a gradient: b is left as it is.
  const torch::Tensor b_before = a.b.detach().clone();
  (a.w.sum() * 2).backward();
  opt.step(0.01);
  EXPECT_TRUE(torch::equal(a.b.detach(), b_before));
  EXPECT_EQ(opt.steps(), 2);
}

TEST(OptimizerTest, StateRoundTripContinuesIdentically) {
  Params a = make_params(), b = make_params();
  OptimizerOptions o;
  o.lr = 0.01;
  Optimizer oa({{"w", a.w}, {"bias", a.b}}, o);
  for (int s = 0; s < 3; ++s) {
    oa.zero_grad();
    loss_of(a, s).backward();
    oa.step(0.01);
  }
  // b takes a's parameters and (serialised) state, then both continue.
  {
    torch::NoGradGuard g;
    b.w.copy_(a.w);
    b.b.copy_(a.b);
  }
  Optimizer ob({{"w", b.w}, {"bias", b.b}}, o);
  ob.load_state_dict(deserialize_tensors(serialize_tensors(oa.state_dict()), "state"));
  EXPECT_EQ(ob.steps(), 3);
  for (int s = 3; s < 6; ++s) {
    oa.zero_grad();
    loss_of(a, s).backward();
    oa.step(0.01);
    ob.zero_grad();
    loss_of(b, s).backward();
    ob.step(0.01);
  }
  EXPECT_TRUE(torch::equal(a.w, b.w));
  EXPECT_TRUE(torch::equal(a.b, b.b));
}

TEST(OptimizerTest, NoDecayNames) {
  EXPECT_TRUE(is_no_decay_parameter("bert.encoder.layer.0.output.dense.bias"));
  EXPECT_TRUE(is_no_decay_parameter("bert.embeddings.LayerNorm.weight"));
  EXPECT_TRUE(is_no_decay_parameter("cls.predictions.bias"));
  EXPECT_FALSE(is_no_decay_parameter("bert.encoder.layer.0.output.dense.weight"));
  EXPECT_FALSE(is_no_decay_parameter("bert.embeddings.word_embeddings.weight"));
}

TEST(ScheduleTest, LinearWarmupThenLinearDecay) {
  LinearSchedule s{1.0, 10, 110};
  EXPECT_DOUBLE_EQ(s.lr(0), 0.0);
  EXPECT_DOUBLE_EQ(s.lr(5), 0.5);
  EXPECT_DOUBLE_EQ(s.lr(10), 1.0);
  EXPECT_DOUBLE_EQ(s.lr(60), 0.5);
  EXPECT_DOUBLE_EQ(s.lr(110), 0.0);
  EXPECT_DOUBLE_EQ(s.lr(200), 0.0);
  LinearSchedule no_warmup{2.0, 0, 4};
  EXPECT_DOUBLE_EQ(no_warmup.lr(0), 2.0);
  EXPECT_DOUBLE_EQ(no_warmup.lr(3), 0.5);
}

TEST(ClipTest, ScalesToMaxNorm) {
  torch::Tensor a = torch::zeros({2}).requires_grad_(), b = torch::zeros({1}).requires_grad_();
  a.mutable_grad() = torch::tensor({3.0f, 0.0f});
  b.mutable_grad() = torch::tensor({4.0f});
  EXPECT_NEAR(clip_grad_norm({a, b}, 1.0), 5.0, 1e-6);
  EXPECT_NEAR(a.grad()[0].item<double>(), 0.6, 1e-5);
  EXPECT_NEAR(b.grad()[0].item<double>(), 0.8, 1e-5);
  EXPECT_NEAR(clip_grad_norm({a, b}, 10.0), 1.0, 1e-5);  // below the limit: unchanged
  EXPECT_NEAR(a.grad()[0].item<double>(), 0.6, 1e-5);
}

// UniLM v1's BertAdam clips each parameter by itself; the returned norm is the global one either
// way (the log's grad_norm).
TEST(ClipTest, PerParameterClipsEachGradientByItsOwnNorm) {
  auto grads = [] {
    torch::Tensor a = torch::zeros({2}).requires_grad_(), b = torch::zeros({1}).requires_grad_();
    a.mutable_grad() = torch::tensor({3.0f, 0.0f});
    b.mutable_grad() = torch::tensor({0.5f});
    return std::vector<torch::Tensor>{a, b};
  };
  auto per = grads();
  EXPECT_NEAR(clip_gradients(per, 1.0, ClipMode::kPerParameter), std::sqrt(9.25), 1e-6);
  EXPECT_NEAR(per[0].grad()[0].item<double>(), 3.0 / (3.0 + 1e-6), 1e-6);  // down to norm 1
  EXPECT_NEAR(per[1].grad()[0].item<double>(), 0.5, 1e-7);                 // under 1: as it was
  auto global = grads();
  EXPECT_NEAR(clip_gradients(global, 1.0, ClipMode::kGlobal), std::sqrt(9.25), 1e-6);
  EXPECT_NEAR(global[0].grad()[0].item<double>(), 3.0 / std::sqrt(9.25), 1e-5);
  EXPECT_NEAR(global[1].grad()[0].item<double>(), 0.5 / std::sqrt(9.25), 1e-5);
  auto off = grads();
  EXPECT_NEAR(clip_gradients(off, 0.0, ClipMode::kPerParameter), std::sqrt(9.25), 1e-6);
  EXPECT_NEAR(off[0].grad()[0].item<double>(), 3.0, 1e-7);  // measured only
  EXPECT_EQ(parse_clip_mode("per_parameter"), ClipMode::kPerParameter);
  EXPECT_EQ(to_string(ClipMode::kGlobal), "global");
  EXPECT_THROW(parse_clip_mode("per-parameter"), InputError);
}

TEST(OptimizerOptionsTest, JsonRoundTripAndTypeErrors) {
  OptimizerOptions o;
  o.kind = OptimizerKind::kAdamax;
  o.lr = 5e-5;
  o.beta2 = 0.98;
  o.eps = 1e-9;
  o.weight_decay = 0.0;
  o.bias_correction = false;
  nlohmann::ordered_json j;
  j["before"] = 1;
  to_json(o, j);
  EXPECT_EQ(j.begin().key(), "before");  // appended, in run.json's order
  EXPECT_EQ(j.at("optimizer"), "adamax");
  OptimizerOptions back;
  update_from_json(back, j, "run.json");
  EXPECT_EQ(back.kind, OptimizerKind::kAdamax);
  EXPECT_DOUBLE_EQ(back.lr, 5e-5);
  EXPECT_DOUBLE_EQ(back.beta1, 0.9);  // written as the default, read back
  EXPECT_DOUBLE_EQ(back.beta2, 0.98);
  EXPECT_DOUBLE_EQ(back.eps, 1e-9);
  EXPECT_DOUBLE_EQ(back.weight_decay, 0.0);
  EXPECT_FALSE(back.bias_correction);

  OptimizerOptions kept;
  update_from_json(kept, nlohmann::json::object(), "empty.json");  // absent keys keep defaults
  EXPECT_DOUBLE_EQ(kept.lr, OptimizerOptions{}.lr);
  EXPECT_THROW(update_from_json(kept, {{"lr", "fast"}}, "bad.json"), InputError);
  EXPECT_THROW(update_from_json(kept, {{"bias_correction", 1}}, "bad.json"), InputError);
  EXPECT_THROW(update_from_json(kept, {{"optimizer", "sgd"}}, "bad.json"), InputError);
}

}  // namespace
}  // namespace unieval::models
