// The step-parity hook (models/training/parity_step.h, `finetune --parity-dump`): its UniLM loss, gradients
// and BertAdam update held to references written out here in plain tensor ops (UniLM v1's
// LabelSmoothingLoss + loss_mask_and_normalize; BertAdam.step with per-parameter clipping).
#include "models/training/parity_step.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "core/error.h"
#include "models/nn/masks.h"
#include "models/training/trainer.h"

namespace unieval::models::parity_step_test {
namespace {

UnilmModel tiny_model(int64_t vocab) {
  torch::manual_seed(5);
  UnilmModel m(BertConfig::tiny(vocab, 0.0));
  m->init_weights();
  return m;
}

// Two rows "[CLS] s s [SEP] t t t [SEP]" / shorter with padding, s2s mask, three slots (one padding).
ParityBatch tiny_batch() {
  nlohmann::json j;
  j["input_ids"] = {{2, 10, 11, 3, 4, 13, 4, 3}, {2, 12, 3, 4, 14, 3, 0, 0}};
  j["token_type_ids"] = {{0, 0, 0, 0, 1, 1, 1, 1}, {0, 0, 0, 1, 1, 1, 0, 0}};
  const torch::Tensor m = seq2seq_mask({4, 3}, {4, 3});  // [2,8,8]
  nlohmann::json mask = nlohmann::json::array();
  for (int64_t b = 0; b < 2; ++b) {
    nlohmann::json rows = nlohmann::json::array();
    for (int64_t i = 0; i < 8; ++i) {
      nlohmann::json row = nlohmann::json::array();
      for (int64_t k = 0; k < 8; ++k) row.push_back(m[b][i][k].item<int64_t>());
      rows.push_back(row);
    }
    mask.push_back(rows);
  }
  j["attention_mask"] = mask;
  j["masked_pos"] = {{4, 6, 7}, {3, 0, 0}};
  j["masked_ids"] = {{15, 16, 3}, {17, 0, 0}};
  j["masked_weights"] = {{1, 1, 1}, {1, 0, 0}};
  return parity_batch_from_json(j, "batch.json", nullptr);
}

// The official loss in double, from the model's current weights.
torch::Tensor reference_loss(UnilmModel& model, const ParityBatch& b, double eps) {
  BertOutput h = model->forward(b.input_ids, b.token_type_ids, b.attention_mask);
  const int64_t H = h.last_hidden_state.size(-1);
  const torch::Tensor hm =
      h.last_hidden_state.gather(1, b.masked_pos.unsqueeze(-1).expand({-1, -1, H}))
          .reshape({-1, H});
  const torch::Tensor lp = torch::log_softmax(model->mlm_logits(hm).to(torch::kDouble), -1);
  const int64_t V = lp.size(1);
  const torch::Tensor labels = b.masked_ids.view({-1});
  torch::Tensor q = torch::full_like(lp, eps / double(V - 2));
  q.select(1, 0).fill_(0.0);
  q.scatter_(1, labels.view({-1, 1}), 1.0 - eps);
  q.masked_fill_((labels == 0).view({-1, 1}), 0.0);
  const torch::Tensor kl =
      torch::where(q > 0, q * (q.clamp_min(1e-300).log() - lp), torch::zeros_like(q)).sum(1);
  const torch::Tensor w = b.masked_weights.view({-1}).to(torch::kDouble);
  return (kl * w).sum() / (w.sum() + 1e-5);
}

TEST(ParityStepTest, UnilmLossAndGradientsMatchTheOfficialForm) {
  const int64_t V = 24;
  UnilmModel model = tiny_model(V);
  UnilmModel ref = tiny_model(V);
  const ParityBatch b = tiny_batch();
  ParityStepOptions o;
  o.optim.lr = 0.0;  // measure only
  const auto steps = parity_step(model, b, o);
  ASSERT_EQ(steps.size(), 1u);
  ref->eval();
  torch::Tensor l = reference_loss(ref, b, 0.1);
  l.backward();
  EXPECT_NEAR(steps[0].loss, l.item<double>(), 1e-5 * l.item<double>());
  EXPECT_EQ(steps[0].loss, steps[0].loss_unilm);
  EXPECT_GT(steps[0].loss_ours - steps[0].loss_unilm,
            0.3);  // ours = CE to the smoothed distribution
  size_t seen = 0;
  for (const auto& item : ref->named_parameters()) {
    if (!item.value().grad().defined()) continue;
    ++seen;
    ASSERT_TRUE(steps[0].grad_norms.count(item.key())) << item.key();
    const double want = item.value().grad().norm().item<double>();
    EXPECT_NEAR(steps[0].grad_norms.at(item.key()), want, 1e-5 * want + 1e-9) << item.key();
  }
  EXPECT_EQ(seen, steps[0].grad_norms.size());
  EXPECT_FALSE(
      steps[0].grad_norms.count("bert.pooler.dense.weight"));  // unused: no gradient, as official
}

// BertAdam.step written out: per-parameter clip_grad_norm_, m/v without bias correction,
// update = m / (sqrt(v) + e) + wd·p, p -= lr_scheduled · update (warmup_linear at the step before).
TEST(ParityStepTest, TwoStepsEqualBertAdamWithPerParameterClipping) {
  const int64_t V = 24;
  UnilmModel model = tiny_model(V);
  UnilmModel ref = tiny_model(V);
  const ParityBatch b = tiny_batch();
  ParityStepOptions o;
  o.optim.lr = 1e-2;
  o.max_grad_norm = 0.05;  // small: every parameter's gradient is clipped on its own
  o.warmup_steps = 1;      // BertAdam warmup 0.1 of t_total 10: lr 0 then the peak
  o.total_steps = 10;
  o.steps = 2;
  const auto steps = parity_step(model, b, o);
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].lr, 0.0);
  EXPECT_DOUBLE_EQ(steps[1].lr, 1e-2);
  ref->eval();
  std::map<std::string, torch::Tensor> m, v;
  for (int s = 0; s < 2; ++s) {
    for (auto& p : ref->parameters()) p.mutable_grad() = torch::Tensor();
    reference_loss(ref, b, 0.1).backward();
    const double x = double(s) / 10.0;
    const double lr = 1e-2 * (x < 0.1 ? x / 0.1 : std::max((x - 1.0) / (0.1 - 1.0), 0.0));
    torch::NoGradGuard no_grad;
    for (auto& item : ref->named_parameters()) {
      torch::Tensor p = item.value();
      if (!p.grad().defined()) continue;
      torch::Tensor g = p.grad().to(torch::kFloat);
      const double n = g.norm().item<double>();
      const double coef = 0.05 / (n + 1e-6);
      if (coef < 1) g = g * coef;
      const std::string& k = item.key();
      if (!m.count(k)) m[k] = torch::zeros_like(p), v[k] = torch::zeros_like(p);
      m[k] = m[k] * 0.9 + 0.1 * g;
      v[k] = v[k] * 0.999 + 0.001 * g * g;
      torch::Tensor update = m[k] / (v[k].sqrt() + 1e-6);
      const bool no_decay =
          k.find("bias") != std::string::npos || k.find("LayerNorm") != std::string::npos;
      if (!no_decay) update = update + 0.01 * p;
      p.sub_(lr * update);
    }
  }
  auto mine = model->named_parameters();
  for (const auto& item : ref->named_parameters()) {
    const torch::Tensor d = (mine[item.key()] - item.value()).abs().max();
    // fp32 Adam: m / (sqrt(v) + eps) of near-zero gradients amplifies rounding; 1e-3 of an lr-sized step.
    EXPECT_LE(d.item<double>(), 1e-5 + 1e-5 * item.value().abs().max().item<double>())
        << item.key();
  }
  // The weights moved at the second step (not at the first: lr 0).
  UnilmModel init = tiny_model(V);
  EXPECT_FALSE(torch::allclose(mine["bert.embeddings.word_embeddings.weight"],
                               init->named_parameters()["bert.embeddings.word_embeddings.weight"]));
}

TEST(ParityStepTest, GlobalClippingAndOurLossAreSelectable) {
  const int64_t V = 24;
  UnilmModel a = tiny_model(V);
  const ParityBatch b = tiny_batch();
  nlohmann::json opts = {{"loss", "ours"}, {"clip", "global"}, {"lr", 0.0}};
  ParityStepOptions o;
  o.update_from_json(opts, "batch.json");
  const auto s = parity_step(a, b, o);
  EXPECT_EQ(s[0].loss, s[0].loss_ours);
  EXPECT_THROW(o.update_from_json(nlohmann::json{{"clip", "nope"}}, "batch.json"), InputError);
  EXPECT_THROW(o.update_from_json(nlohmann::json{{"loss", "kl"}}, "batch.json"), InputError);
  const auto bad =
      nlohmann::json::parse(R"({"input_ids": [[2, 3]], "masked_pos": [[5]], "masked_ids": [[7]]})");
  EXPECT_THROW(parity_batch_from_json(bad, "batch.json", nullptr),
               InputError);  // position outside T
}

// The options keep the key order parity.json had before their one declaration, and read back to
// the same values; an unknown key (a misspelt one in a batch file) is an InputError naming it.
TEST(ParityStepTest, OptionsRoundTripInTheirKeyOrder) {
  ParityStepOptions o;
  o.loss = "ours";
  o.optim.kind = OptimizerKind::kAdamax;
  o.optim.lr = 1e-3;
  o.warmup_steps = 2;
  o.total_steps = 9;
  o.clip = "global";
  o.steps = 3;
  const nlohmann::ordered_json j = o.to_json();
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"loss", "label_smoothing", "optimizer", "lr", "beta1",
                                            "beta2", "eps", "weight_decay", "bias_correction",
                                            "warmup_steps", "total_steps", "max_grad_norm", "clip",
                                            "steps"}));
  EXPECT_EQ(j["bias_correction"], false);  // BertAdam's default
  ParityStepOptions back;
  back.update_from_json(nlohmann::json::parse(j.dump()), "batch.json");
  EXPECT_EQ(back.to_json().dump(), j.dump());
  try {
    back.update_from_json(nlohmann::json{{"warmup", 2}}, "batch.json");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown key 'warmup'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace unieval::models::parity_step_test
