// Parity with HF transformers v4.30.2 (Apache-2.0) BertForSequenceClassification /
// BertForQuestionAnswering and google-research/bert (Apache-2.0) run_squad.py, against
// tests/parity/fixtures/nlu_heads, written by RUNNING the official code
// (tests/parity/gen/nlu_heads.py; commits in heads.json and squad.json). One tiny random checkpoint
// (HF names, safetensors) in unieval's model with the three heads:
//   classify (2 labels, cross-entropy), regress (1 output, MSE), span on an unpadded batch: logits,
//     loss and every parameter's gradient norm within 1e-5 relative (fp32);
//   span on a padded batch: logits at every position (padding too) within 1e-5; the loss is the
//     documented difference of models/training/nlu.h (padding left out of our softmax): HF's loss
//     is the cross-entropy over all positions of its own logits, ours over the real ones, and the
//     fixture's two differ;
//   SQuAD: run_squad's FullTokenizer pieces of every question and context word = ours; the
//     RawResult logits of its features (padded to max_seq_length) = predict_nlu's with pad_to, and
//     the fixture's n-best really ranks padding positions (what PredictOptions::pad_to is for).
// The predictions of the whole `unieval run` path are compared in
// tests/pipelines/parity_squad_predictions_test.cc.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/io.h"
#include "models/io/checkpoint.h"
#include "models/tokenizer/wordpiece.h"
#include "models/training/nlu.h"

namespace unieval::models::parity_nlu_heads_test {
namespace {

namespace fs = std::filesystem;

const fs::path& fx() {
  static const fs::path p = fs::path(UNIEVAL_SOURCE_DIR) / "tests/parity/fixtures/nlu_heads";
  return p;
}

nlohmann::json read_json(const std::string& name) {
  return nlohmann::json::parse(core::read_file((fx() / name).string()));
}

// The encoder + qa_outputs checkpoint, and the classifier of a head file when given.
UnilmModel load_model(NluHead head, int64_t num_labels, const std::string& head_file) {
  LoadReport report;
  UnilmModel model =
      load_checkpoint((fx() / "model").string(), nlu_heads(head, num_labels), &report);
  EXPECT_GT(report.loaded, 0u);
  if (!head_file.empty()) {
    LoadReport h = load_weights(*model, (fx() / head_file).string());
    EXPECT_EQ(h.loaded, 2u) << head_file;  // classifier.weight, classifier.bias
  }
  for (const auto& m : report.missing_keys)
    EXPECT_EQ(m.rfind("classifier.", 0), 0u) << "missing from the checkpoint: " << m;
  model->eval();
  return model;
}

// Rows of the fixture batch as features (ids cut to their length).
std::vector<NluFeature> batch_features(const nlohmann::json& b, const std::vector<int>& rows) {
  std::vector<NluFeature> out;
  for (int r : rows) {
    NluFeature f;
    const int n = b["lengths"][r].get<int>();
    for (int t = 0; t < n; ++t) {
      f.ids.push_back(b["input_ids"][r][t].get<int32_t>());
      f.types.push_back(b["token_type_ids"][r][t].get<int32_t>());
    }
    f.label = b["labels"][r].get<int64_t>();
    f.target = b["targets"][r].get<float>();
    f.start = b["starts"][r].get<int64_t>();
    f.end = b["ends"][r].get<int64_t>();
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<size_t> all(size_t n) {
  std::vector<size_t> idx(n);
  for (size_t i = 0; i < n; ++i) idx[i] = i;
  return idx;
}

// |got - want| <= 1e-5 * max |want| over the vector (relative to its scale); returns the max
// relative difference.
double expect_close(const std::vector<float>& got, const std::vector<double>& want,
                    const std::string& what) {
  EXPECT_EQ(got.size(), want.size()) << what;
  double scale = 0, diff = 0;
  for (double w : want) scale = std::max(scale, std::abs(w));
  for (size_t i = 0; i < std::min(got.size(), want.size()); ++i)
    diff = std::max(diff, std::abs(double(got[i]) - want[i]));
  EXPECT_LE(diff, 1e-5 * scale) << what << ": max |diff| " << diff << ", scale " << scale;
  return scale > 0 ? diff / scale : diff;
}

// loss within 1e-5 relative; every HF gradient norm within 1e-5 relative (+ float32 epsilon times
// the largest norm: the gradients that are 0 up to rounding, below) of ours, and ours has
// no other gradient.
void expect_loss_and_grads(UnilmModel& model, const NluBatch& b, NluHead head,
                           const nlohmann::json& want) {
  model->zero_grad();
  torch::Tensor loss = nlu_loss(model, b, head);
  const double l = want["loss"].get<double>();
  EXPECT_NEAR(loss.item<double>(), l, 1e-5 * std::abs(l));
  loss.backward();
  auto params = model->named_parameters();
  double worst = 0, largest = 0;
  size_t zero = 0;
  for (const auto& [name, norm] : want["grad_norms"].items())
    largest = std::max(largest, norm.get<double>());
  // Gradients that are 0 in exact arithmetic (a bias added to every span logit, a key bias) are
  // float32 rounding on both sides: ~1e-8 with OpenBLAS's Zen kernels, ~1e-9 with SkylakeX's. They
  // are held to float32's epsilon times the largest gradient norm instead of a fixed 1e-9.
  const double rounding = 1.2e-7 * largest;
  for (const auto& [name, norm] : want["grad_norms"].items()) {
    ASSERT_TRUE(params.contains(name)) << name;
    const torch::Tensor& g = params[name].grad();
    ASSERT_TRUE(g.defined()) << name;
    const double n = norm.get<double>(), got = g.to(torch::kDouble).norm().item<double>();
    EXPECT_NEAR(got, n, 1e-5 * n + rounding) << name;
    if (n > 1e-6)
      worst = std::max(worst, std::abs(got - n) / n);
    else
      ++zero;
  }
  for (const auto& p : params) {
    if (p.value().grad().defined() && p.value().grad().abs().max().item<double>() > 0) {
      EXPECT_TRUE(want["grad_norms"].contains(p.key())) << "a gradient HF has not: " << p.key();
    }
  }
  std::cout.precision(17);
  std::cout << "loss " << loss.item<double>() << " vs " << l << ", worst gradient norm rel diff "
            << worst << " over " << want["grad_norms"].size() - zero << " parameters (" << zero
            << " with a gradient norm under 1e-6)\n";
}

TEST(NluHeadsParityTest, ClassifyAndRegressMatchHf) {
  const auto fixture = read_json("heads.json");
  EXPECT_EQ(fixture["transformers"]["version"], "4.30.2");
  EXPECT_EQ(fixture["transformers"]["commit"].get<std::string>().size(), 40u);
  const auto& b = fixture["batch"];
  const auto features = batch_features(b, {0, 1, 2, 3});
  struct Case {
    const char* name;
    NluHead head;
    int64_t labels;
    const char* file;
  };
  for (const Case& c : {Case{"classify", NluHead::kClassify, 2, "classify_head.safetensors"},
                        Case{"regress", NluHead::kRegress, 1, "regress_head.safetensors"}}) {
    SCOPED_TRACE(c.name);
    const auto& want = fixture["cases"][c.name];
    UnilmModel model = load_model(c.head, c.labels, c.file);
    auto p = predict_nlu(model, features, c.head, {});
    for (size_t r = 0; r < features.size(); ++r)
      expect_close(p[r].logits, want["logits"][r].get<std::vector<double>>(),
                   std::string(c.name) + " logits row " + std::to_string(r));
    expect_loss_and_grads(model, make_nlu_batch(features, all(features.size()), 0), c.head, want);
  }
}

TEST(NluHeadsParityTest, SpanLogitsLossAndGradientsMatchHfWithoutPadding) {
  const auto fixture = read_json("heads.json");
  const auto& want = fixture["cases"]["span_unpadded"];
  const auto features = batch_features(fixture["batch"], want["rows"].get<std::vector<int>>());
  ASSERT_EQ(features[0].ids.size(), features[1].ids.size());  // no padding in this batch
  UnilmModel model = load_model(NluHead::kSpan, 0, "");
  auto p = predict_nlu(model, features, NluHead::kSpan, {});
  for (size_t r = 0; r < features.size(); ++r) {
    expect_close(p[r].start, want["start_logits"][r].get<std::vector<double>>(), "start");
    expect_close(p[r].end, want["end_logits"][r].get<std::vector<double>>(), "end");
  }
  expect_loss_and_grads(model, make_nlu_batch(features, all(features.size()), 0), NluHead::kSpan,
                        want);
}

// Cross-entropy of (start + end) / 2 over the first `len` positions of each row.
double span_ce(const nlohmann::json& starts_logits, const nlohmann::json& ends_logits,
               const nlohmann::json& b, bool all_positions) {
  double total = 0;
  const size_t rows = starts_logits.size();
  for (size_t r = 0; r < rows; ++r) {
    for (int side = 0; side < 2; ++side) {
      const auto v = (side ? ends_logits : starts_logits)[r].get<std::vector<double>>();
      const size_t n = all_positions ? v.size() : b["lengths"][r].get<size_t>();
      const int64_t target = (side ? b["ends"] : b["starts"])[r].get<int64_t>();
      const double mx = *std::max_element(v.begin(), v.begin() + static_cast<int64_t>(n));
      double z = 0;
      for (size_t i = 0; i < n; ++i) z += std::exp(v[i] - mx);
      total += (mx + std::log(z) - v[target]) / 2.0;
    }
  }
  return total / double(rows);
}

TEST(NluHeadsParityTest, PaddedSpanLossDiffersOnlyByTheDocumentedPaddingExclusion) {
  const auto fixture = read_json("heads.json");
  const auto& b = fixture["batch"];
  const auto& want = fixture["cases"]["span_padded"];
  const auto features = batch_features(b, {0, 1, 2, 3});
  UnilmModel model = load_model(NluHead::kSpan, 0, "");
  // Logits at every position of the padded batch, padding included (pad_to = its width).
  const int64_t width = static_cast<int64_t>(want["start_logits"][0].size());
  PredictOptions o;
  o.pad_to = width;
  auto p = predict_nlu(model, features, NluHead::kSpan, o);
  for (size_t r = 0; r < features.size(); ++r) {
    expect_close(p[r].start, want["start_logits"][r].get<std::vector<double>>(), "start");
    expect_close(p[r].end, want["end_logits"][r].get<std::vector<double>>(), "end");
  }
  const double hf = want["loss"].get<double>();
  const double hf_all = span_ce(want["start_logits"], want["end_logits"], b, true);
  const double hf_real = span_ce(want["start_logits"], want["end_logits"], b, false);
  EXPECT_NEAR(hf_all, hf, 1e-5 * hf);  // HF: the softmax over every position
  const double ours =
      nlu_loss(model, make_nlu_batch(features, all(features.size()), 0), NluHead::kSpan)
          .item<double>();
  EXPECT_NEAR(ours, hf_real, 1e-5 * hf_real);    // ours: over the real ones
  EXPECT_GT(std::abs(hf - hf_real), 1e-3 * hf);  // and the fixture does hit the difference
  std::cout << "padded span loss: HF " << hf << ", ours " << ours << " (HF's logits over the real "
            << "positions: " << hf_real << ")\n";
}

TEST(NluHeadsParityTest, SquadTokensAndPaddedLogitsMatchRunSquad) {
  const auto sq = read_json("squad.json");
  EXPECT_EQ(sq["bert"]["commit"].get<std::string>().size(), 40u);
  ASSERT_TRUE(sq["do_lower_case"].get<bool>());
  const auto tok = WordPieceTokenizer::from_file((fx() / "model/vocab.txt").string(),
                                                 TokenizerOptions::bert(true));
  size_t words = 0;
  for (const auto& e : sq["examples"]) {
    EXPECT_EQ(tok.tokenize(e["question"].get<std::string>()),
              e["query_pieces"].get<std::vector<std::string>>())
        << e["id"];
    for (size_t w = 0; w < e["doc_words"].size(); ++w, ++words)
      EXPECT_EQ(tok.tokenize(e["doc_words"][w].get<std::string>()),
                e["doc_pieces"][w].get<std::vector<std::string>>())
          << e["doc_words"][w];
  }
  EXPECT_GT(words, 100u);

  std::vector<NluFeature> features;
  for (const auto& f : sq["features"]) {
    NluFeature x;
    x.ids = f["input_ids"].get<std::vector<int32_t>>();
    x.types = f["segment_ids"].get<std::vector<int32_t>>();
    features.push_back(std::move(x));
  }
  const int64_t max_seq = sq["max_seq_length"].get<int64_t>();
  UnilmModel model = load_model(NluHead::kSpan, 0, "");
  PredictOptions o;
  o.pad_to = max_seq;
  o.batch_size = 7;  // several batches
  auto p = predict_nlu(model, features, NluHead::kSpan, o);
  double worst = 0;
  size_t short_windows = 0;
  for (size_t i = 0; i < features.size(); ++i) {
    const auto& f = sq["features"][i];
    worst = std::max(worst, expect_close(p[i].start, f["start_logits"].get<std::vector<double>>(),
                                         "start, feature " + std::to_string(i)));
    worst = std::max(worst, expect_close(p[i].end, f["end_logits"].get<std::vector<double>>(),
                                         "end, feature " + std::to_string(i)));
    short_windows += static_cast<int64_t>(features[i].ids.size()) < max_seq;
  }
  std::cout << features.size() << " SQuAD features (" << short_windows
            << " padded), worst logit diff " << worst << " of the scale\n";
  // The settings' n-best (run_squad's _get_best_indexes over all max_seq_length positions) take
  // padding positions for some windows: without pad_to those candidates would differ.
  size_t padded_candidates = 0;
  for (const auto& s : sq["settings"]) {
    const int64_t n_best = s["n_best_size"].get<int64_t>();
    for (size_t i = 0; i < features.size(); ++i) {
      std::vector<int64_t> order(static_cast<size_t>(max_seq));
      for (int64_t k = 0; k < max_seq; ++k) order[static_cast<size_t>(k)] = k;
      std::stable_sort(order.begin(), order.end(),
                       [&](int64_t a, int64_t b) { return p[i].start[a] > p[i].start[b]; });
      for (int64_t k = 0; k < n_best; ++k)
        padded_candidates +=
            order[static_cast<size_t>(k)] >= static_cast<int64_t>(features[i].ids.size());
    }
  }
  EXPECT_GT(padded_candidates, 0u);
}

}  // namespace
}  // namespace unieval::models::parity_nlu_heads_test
