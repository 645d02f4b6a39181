// GPT fine-tuning (models/training/gpt_finetune.h) against fixtures written by RUNNING the official
// code (never copied here):
//   tests/parity/fixtures/gpt_double_heads/  <- tests/parity/gen/gpt_double_heads.py: HF
//     transformers v4.30.2 (66fd3a8) OpenAIGPTDoubleHeadsModel on a tiny random model, batches
//     built by examples/legacy/run_openai_gpt.py pre_process_datasets; mc_logits, lm_loss,
//     mc_loss, mc_loss + lm_coef·lm_loss for lm_coef 0.5 and 0.9, and the gradient of that total
//     (per-parameter L2 norms, two whole gradients).
//   tests/parity/fixtures/gpt_input_transform.json  <- tests/parity/gen/gpt_input_transform.py:
//     openai/finetune-transformer-lm a69b5c4 train.py transform_roc (GPT Figure 1, multiple
//     choice), with and without truncation.
// Mapping: HF's lm labels are the ids with -100 on the padding = our attention_mask on the target
// positions; mc_token_ids = our `last`; the release's positions n_vocab + n_special + t (rows of its
// one embedding table) = our positions_embed row t (position ids arange(T)); its mask mmb = our
// attention_mask; its pool_idx (first classify token) = our `last`; its --n_ctx = our max_len
// (max_seq_len) with GptChoiceCut::kPerText. Tolerance: 1e-5 relative (fp32) on losses, logits,
// gradient norms and gradients; tokens, masks, indices and predictions exactly.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/io.h"
#include "models/nn/gpt.h"
#include "models/training/gpt_finetune.h"

namespace unieval::models::gpt_double_heads_parity_test {
namespace {

using Ids = std::vector<int32_t>;
constexpr double kRel = 1e-5;

std::string fixture_path(const std::string& name) {
  return std::string(UNIEVAL_SOURCE_DIR) + "/tests/parity/fixtures/" + name;
}
nlohmann::json fixture(const std::string& name) {
  return nlohmann::json::parse(core::read_file(fixture_path(name)));
}

// |ours − theirs| / max(|theirs|, scale), tracked as the largest seen. scale: a tensor element is
// measured against its tensor's largest |value| (elements near 0 carry the summation-order noise
// of fp32, ~1e-8 absolute, in both programs).
struct RelDiff {
  double max = 0.0;
  void check(double ours, double theirs, const std::string& what, double scale = 0.0) {
    const double d = std::abs(ours - theirs) / std::max({std::abs(theirs), scale, 1e-30});
    max = std::max(max, d);
    EXPECT_LE(d, kRel) << what << ": ours " << ours << ", HF " << theirs;
  }
};

// The HF batch's rows as our features: each row's real prefix (up to its mc token), the label.
std::vector<GptFeature> features_of(const nlohmann::json& b) {
  std::vector<GptFeature> out;
  for (size_t i = 0; i < b["input_ids"].size(); ++i) {
    GptFeature f;
    f.label = b["mc_labels"][i].get<int64_t>();
    for (size_t k = 0; k < b["input_ids"][i].size(); ++k) {
      const auto& row = b["input_ids"][i][k];
      const auto& labels = b["lm_labels"][i][k];
      const size_t len = b["mc_token_ids"][i][k].get<size_t>() + 1;
      Ids s;
      for (size_t t = 0; t < row.size(); ++t) {
        // HF's labels: the ids on the sequence, -100 (ignored) on the padding.
        EXPECT_EQ(labels[t].get<int64_t>(), t < len ? row[t].get<int64_t>() : -100);
        if (t < len) s.push_back(row[t].get<int32_t>());
      }
      f.seqs.push_back(s);
    }
    out.push_back(std::move(f));
  }
  return out;
}

TEST(GptDoubleHeadsParityTest, LossesLogitsAndGradientsMatchHf) {
  const auto fx = fixture("gpt_double_heads/expected.json");
  LoadReport report;
  GptHeads heads;
  heads.multiple_choice = true;
  GptModel model = load_gpt_checkpoint(fixture_path("gpt_double_heads/model"), heads, &report);
  ASSERT_TRUE(report.complete()) << report.summary();
  ASSERT_TRUE(report.tied_conflicts.empty());
  model->eval();  // dropout 0 in the config as well
  RelDiff loss, logit, norm, grad;
  int compared = 0;
  for (const std::string name : {"roc", "four"}) {
    SCOPED_TRACE(name);
    const auto& b = fx["batches"][name];
    const std::vector<GptFeature> features = features_of(b);
    std::vector<size_t> idx(features.size());
    for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
    GptBatch batch = make_gpt_batch(features, idx);
    const int64_t choices = batch.per_example;
    for (int64_t r = 0; r < batch.examples * choices; ++r)
      EXPECT_EQ(batch.last[r].item<int64_t>(),
                b["mc_token_ids"][r / choices][r % choices].get<int64_t>());

    // mc_logits and the predicted choice.
    const auto scores = predict_gpt(model, features, GptHead::kMultipleChoice, 8);
    for (size_t i = 0; i < features.size(); ++i) {
      const auto& want = b["mc_logits"][i];
      ASSERT_EQ(scores[i].size(), want.size());
      for (size_t k = 0; k < want.size(); ++k)
        logit.check(scores[i][k], want[k].get<double>(), "mc_logits");
      std::vector<double> w = want.get<std::vector<double>>();
      EXPECT_EQ(std::max_element(scores[i].begin(), scores[i].end()) - scores[i].begin(),
                std::max_element(w.begin(), w.end()) - w.begin());
    }

    for (const auto& t : b["totals"]) {
      const double lm_coef = t["lm_coef"].get<double>();
      SCOPED_TRACE("lm_coef " + std::to_string(lm_coef));
      model->zero_grad();
      GptLoss l = gpt_loss(model, batch, GptHead::kMultipleChoice, lm_coef);
      l.total.backward();
      loss.check(l.lm.item<double>(), b["lm_loss"].get<double>(), "lm_loss");
      loss.check(l.task.item<double>(), b["mc_loss"].get<double>(), "mc_loss");
      loss.check(l.total.item<double>(), t["total"].get<double>(), "total");
      std::map<std::string, torch::Tensor> params;
      for (const auto& p : model->named_parameters()) params[p.key()] = p.value();
      EXPECT_EQ(params.size(), t["grad_norms"].size());
      for (const auto& [pname, want] : t["grad_norms"].items()) {
        ASSERT_TRUE(params.count(pname)) << pname;
        ASSERT_TRUE(params[pname].grad().defined()) << pname;
        const double ours = params[pname].grad().to(torch::kDouble).norm().item<double>();
        if (pname == "multiple_choice_head.summary.bias") {
          // Exactly 0 in exact arithmetic (the softmax over an example's choices cancels their
          // shared bias): both sides are rounding noise, HF's |g| = 6e-8.
          EXPECT_LE(std::abs(ours - want.get<double>()), 1e-6) << pname;
        } else {
          norm.check(ours, want.get<double>(), pname);
        }
        ++compared;
      }
      for (const auto& [pname, want] : t["gradients"].items()) {
        torch::Tensor g = params.at(pname).grad().reshape({-1}).contiguous();
        ASSERT_EQ(g.numel(), static_cast<int64_t>(want.size()));
        double scale = 0.0;
        for (const auto& x : want) scale = std::max(scale, std::abs(x.get<double>()));
        for (int64_t e = 0; e < g.numel(); ++e)
          grad.check(g[e].item<double>(), want[e].get<double>(), pname, scale);
      }
    }
  }
  EXPECT_EQ(compared, 2 * 2 * 28);  // batches × lm_coefs × parameters
  std::cout << "max relative difference: losses " << loss.max << ", mc_logits " << logit.max
            << ", gradient norms " << norm.max << ", gradients " << grad.max << "\n";
}

// The HF example's batch is the release's rule with cap_length = max_len/2 − 2.
TEST(GptDoubleHeadsParityTest, RunOpenaiGptRowsAreOurPerTextCut) {
  const auto fx = fixture("gpt_double_heads/expected.json");
  const GptSpecialIds ids{fx["start"], fx["delimiter"], fx["classify"]};
  const int64_t max_len = 2 * (fx["cap_length"].get<int64_t>() + 2);
  const auto& b = fx["batches"]["roc"];
  const std::vector<GptFeature> hf = features_of(b);
  ASSERT_EQ(hf.size(), fx["roc_examples"].size());
  for (size_t i = 0; i < hf.size(); ++i) {
    const auto& e = fx["roc_examples"][i];
    GptFeature f =
        gpt_choice_feature(e["story"].get<Ids>(), {}, e["endings"].get<std::vector<Ids>>(),
                           e["label"], max_len, GptChoiceCut::kPerText, ids);
    EXPECT_EQ(f.seqs, hf[i].seqs) << "example " << i;
    EXPECT_EQ(f.label, hf[i].label);
  }
}

TEST(GptInputTransformParityTest, ChoiceFeatureMatchesTransformRoc) {
  const auto fx = fixture("gpt_input_transform.json");
  const GptSpecialIds ids{fx["start"], fx["delimiter"], fx["classify"]};
  const int64_t first_position = fx["n_vocab"].get<int64_t>() + fx["n_special"].get<int64_t>();
  int sequences = 0;
  for (const std::string name : {"short", "cut"}) {
    SCOPED_TRACE(name);
    const auto& c = fx["cases"][name];
    const int64_t n_ctx = c["n_ctx"];
    std::vector<GptFeature> features;
    for (const auto& e : fx["examples"])
      features.push_back(gpt_choice_feature(e["story"].get<Ids>(), {},
                                            e["endings"].get<std::vector<Ids>>(), 0, c["n_ctx_arg"],
                                            GptChoiceCut::kPerText, ids));
    std::vector<size_t> idx(features.size());
    for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
    GptBatch batch = make_gpt_batch(features, idx);
    // The release's n_ctx is the longest sequence (capped by --n_ctx): our padded width.
    ASSERT_EQ(batch.input_ids.size(1), n_ctx);
    for (size_t i = 0; i < features.size(); ++i) {
      for (size_t k = 0; k < 2; ++k) {
        const int64_t r = static_cast<int64_t>(2 * i + k);
        const auto& tokens = c["tokens"][i][k];
        const auto& mask = c["mask"][i][k];
        const auto& positions = c["positions"][i][k];
        Ids want;
        for (int64_t t = 0; t < n_ctx; ++t) {
          if (mask[t].get<int>() == 1) want.push_back(tokens[t].get<int32_t>());
          EXPECT_EQ(batch.input_ids[r][t].item<int64_t>(), tokens[t].get<int64_t>());
          EXPECT_EQ(batch.attention_mask[r][t].item<int64_t>(), mask[t].get<int64_t>());
          EXPECT_EQ(positions[t].get<int64_t>() - first_position, t);  // our arange(T)
        }
        EXPECT_EQ(features[i].seqs[k], want);
        EXPECT_EQ(batch.last[r].item<int64_t>(), c["pool_idx"][i][k].get<int64_t>());
        ++sequences;
      }
    }
  }
  EXPECT_EQ(sequences, 12);
}

}  // namespace
}  // namespace unieval::models::gpt_double_heads_parity_test
