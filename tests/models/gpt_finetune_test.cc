// GPT fine-tuning (models/training/gpt_finetune.h): the multiple-choice and entailment heads learn small
// synthetic tasks from scratch, with the auxiliary LM loss on (λ = 0.5) and off (λ = 0); the
// auxiliary loss is logged on its own; similarity sums both orders; zero-shot scoring agrees with
// the LM's own log-softmax.
#include "models/training/gpt_finetune.h"

#include <gtest/gtest.h>

#include <random>

#include "core/error.h"
#include "core/io.h"
#include "models/decoding/search_gpt.h"
#include "tests/test_util.h"

// unieval::models::gpt_finetune_test: its helpers' names are used by other test files of the same unity batch.
namespace unieval::models::gpt_finetune_test {
namespace {

using unieval::testing::TempDir;

// Vocabulary: 0 pad/unused, 1..8 content symbols, 9 start, 10 delimiter, 11 extract.
constexpr int32_t kStart = 9, kDelim = 10, kExtract = 11, kVocab = 12;

TrainOptions fast_options(int64_t steps) {
  TrainOptions o;
  o.optim.lr = 2e-3;
  o.optim.weight_decay = 0.0;
  o.max_steps = steps;
  o.warmup_steps = 10;
  o.batch_size = 16;
  o.batch_tokens = 1 << 20;
  o.label_smoothing = 0.0;
  o.progress = false;
  o.seed = 11;
  return o;
}

// Multiple choice: a random context and three answers; the correct answer is one of the symbols
// 1-3, the wrong ones 4-6 (each choice is scored on its own, the softmax runs over the three).
std::vector<GptFeature> choice_data(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int32_t> sym(1, 6), good(1, 3), bad(4, 6);
  std::vector<GptFeature> out;
  for (size_t i = 0; i < n; ++i) {
    const int32_t x = sym(rng), filler = sym(rng);
    GptFeature f;
    f.label = static_cast<int64_t>(rng() % 3);
    for (int k = 0; k < 3; ++k)
      f.seqs.push_back({kStart, x, filler, kDelim, k == f.label ? good(rng) : bad(rng), kExtract});
    out.push_back(std::move(f));
  }
  return out;
}

// Entailment: premise p, hypothesis h (symbols 1-4); label 1 ("entails") when h == p.
std::vector<GptFeature> entail_data(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int32_t> sym(1, 4);
  std::vector<GptFeature> out;
  for (size_t i = 0; i < n; ++i) {
    const int32_t p = sym(rng);
    const bool yes = rng() % 2;
    int32_t h = p;
    if (!yes)
      while (h == p) h = sym(rng);
    GptFeature f;
    f.label = yes ? 1 : 0;
    f.seqs.push_back({kStart, p, kDelim, h, kExtract});
    out.push_back(std::move(f));
  }
  return out;
}

double accuracy(GptModel& model, const std::vector<GptFeature>& data, GptHead head) {
  auto pred = predict_gpt(model, data, head, 64);
  size_t ok = 0;
  for (size_t i = 0; i < data.size(); ++i)
    ok += std::max_element(pred[i].begin(), pred[i].end()) - pred[i].begin() == data[i].label;
  return double(ok) / double(data.size());
}

std::vector<nlohmann::json> log_lines(const TempDir& dir) {
  return unieval::testing::read_jsonl(dir.path() / "run" / "log.jsonl");
}

TEST(GptFinetuneTest, MultipleChoiceHeadLearnsWithAuxiliaryLm) {
  torch::manual_seed(1);
  GptModel model(GptConfig::tiny(kVocab, 0.0), gpt_heads(GptHead::kMultipleChoice, 0));
  const auto train = choice_data(512, 1), test = choice_data(200, 2);
  TempDir tmp;
  RunDir run((tmp.path() / "run").string());
  run.create({{"kind", "gpt-test"}}, model->config().to_json(), "");
  TrainResult r =
      train_gpt(model, train, GptHead::kMultipleChoice, fast_options(300), 0.5, &run, false);
  EXPECT_TRUE(r.finished);
  const double acc = accuracy(model, test, GptHead::kMultipleChoice);
  EXPECT_GE(acc, 0.9) << "loss " << r.first_loss << " -> " << r.last_loss;
  auto lines = log_lines(tmp);
  ASSERT_EQ(lines.size(), 300u);
  ASSERT_TRUE(lines.back().contains("lm_loss"));
  ASSERT_TRUE(lines.back().contains("task_loss"));
  // loss = task + 0.5 · lm, each logged.
  EXPECT_NEAR(lines.back()["loss"].get<double>(),
              lines.back()["task_loss"].get<double>() + 0.5 * lines.back()["lm_loss"].get<double>(),
              1e-6);  // float32 sums
  EXPECT_LT(lines.back()["lm_loss"].get<double>(), lines.front()["lm_loss"].get<double>());
  // The checkpoint is an HF-named GPT directory.
  EXPECT_TRUE(std::filesystem::exists(tmp.path() / "run/checkpoint/model.safetensors"));
  EXPECT_FALSE(std::filesystem::exists(tmp.path() / "run/checkpoint/vocab.txt"));
}

TEST(GptFinetuneTest, EntailmentHeadLearnsWithoutAuxiliaryLm) {
  torch::manual_seed(2);
  GptModel model(GptConfig::tiny(kVocab, 0.0), gpt_heads(GptHead::kClassify, 2));
  const auto train = entail_data(512, 3), test = entail_data(200, 4);
  TempDir tmp;
  RunDir run((tmp.path() / "run").string());
  run.create({{"kind", "gpt-test"}}, model->config().to_json(), "");
  TrainResult r = train_gpt(model, train, GptHead::kClassify, fast_options(600), 0.0, &run, false);
  EXPECT_TRUE(r.finished);
  EXPECT_GE(accuracy(model, test, GptHead::kClassify), 0.9)
      << "loss " << r.first_loss << " -> " << r.last_loss;
  auto lines = log_lines(tmp);
  ASSERT_FALSE(lines.empty());
  EXPECT_FALSE(lines.back().contains("lm_loss"));
  EXPECT_DOUBLE_EQ(lines.back()["loss"].get<double>(), lines.back()["task_loss"].get<double>());
}

TEST(GptFinetuneTest, SimilaritySumsBothOrdersAndLossesMatchHandComputation) {
  torch::manual_seed(3);
  GptModel model(GptConfig::tiny(kVocab, 0.0), gpt_heads(GptHead::kRegress, 1));
  model->eval();
  GptFeature f;
  f.target = 0.7f;
  f.seqs = {{kStart, 1, kDelim, 2, kExtract}, {kStart, 2, kDelim, 1, kExtract}};
  GptFeature g;
  g.target = 0.1f;
  g.seqs = {{kStart, 3, 4, kDelim, 5, kExtract}, {kStart, 5, kDelim, 3, 4, kExtract}};
  const std::vector<GptFeature> data = {f, g};
  GptBatch b = make_gpt_batch(data, {0, 1});
  EXPECT_EQ(b.input_ids.sizes(), (std::vector<int64_t>{4, 6}));
  torch::NoGradGuard ng;
  auto pred = predict_gpt(model, data, GptHead::kRegress);
  // By hand: each sequence alone, extract states added, then the classifier.
  auto ext = [&](const std::vector<int32_t>& s) {
    std::vector<int64_t> v(s.begin(), s.end());
    auto h = model->forward(torch::tensor(v, torch::kLong).view({1, -1})).last_hidden_state;
    return h[0][static_cast<int64_t>(s.size()) - 1];
  };
  const double want_f = model->classifier(ext(f.seqs[0]) + ext(f.seqs[1])).item<double>();
  EXPECT_NEAR(pred[0][0], want_f, 1e-5);
  GptLoss l = gpt_loss(model, b, GptHead::kRegress, 0.5);
  const double want_g = model->classifier(ext(g.seqs[0]) + ext(g.seqs[1])).item<double>();
  const double mse = ((want_f - 0.7) * (want_f - 0.7) + (want_g - 0.1) * (want_g - 0.1)) / 2;
  EXPECT_NEAR(l.task.item<double>(), mse, 1e-5);
  // LM loss: the mean NLL of the 4 + 4 + 5 + 5 next tokens.
  double nll = 0;
  int count = 0;
  for (const auto& s : {f.seqs[0], f.seqs[1], g.seqs[0], g.seqs[1]}) {
    std::vector<int64_t> v(s.begin(), s.end());
    auto lp = torch::log_softmax(
        model->lm_logits(
            model->forward(torch::tensor(v, torch::kLong).view({1, -1})).last_hidden_state),
        -1);
    for (size_t t = 1; t < s.size(); ++t, ++count) nll -= lp[0][t - 1][s[t]].item<double>();
  }
  EXPECT_EQ(count, 18);
  EXPECT_NEAR(l.lm.item<double>(), nll / count, 1e-5);
  EXPECT_NEAR(l.total.item<double>(), mse + 0.5 * nll / count, 1e-5);
}

TEST(GptFinetuneTest, ZeroShotScoresAreTheLmLogProbabilities) {
  torch::manual_seed(4);
  GptModel model(GptConfig::tiny(kVocab, 0.0));
  const std::vector<int32_t> seq = {kStart, 1, 2, 3, 4};
  auto s = score_continuations(model, {seq, {kStart, 5}}, {3, 1});
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].count, 2);
  EXPECT_EQ(s[1].count, 1);
  auto nt = next_token_logprobs(model, {{kStart, 1, 2}, {kStart, 1, 2, 3}}, {3, 4});
  auto nt5 = next_token_logprobs(model, {{kStart}}, {5});
  EXPECT_NEAR(s[0].sum, nt[0][0] + nt[1][1], 1e-5);  // log p(3 | .. 2) + log p(4 | .. 3)
  EXPECT_NEAR(s[1].sum, nt5[0][0], 1e-5);
  EXPECT_NEAR(s[0].mean(), s[0].sum / 2, 1e-12);
  EXPECT_THROW(score_continuations(model, {seq}, {0}), InputError);
}

TEST(GptGenerateTest, GreedyAndBeamOverTheScorerFollowTheLm) {
  torch::manual_seed(5);
  GptModel model(GptConfig::tiny(kVocab, 0.0));
  model->eval();
  const std::vector<std::vector<int32_t>> prompts = {{1, 2, 3}, {4}};
  SearchOptions o;
  o.max_len = 5;
  o.beam = 1;
  GptScorer greedy_scorer(model, prompts, o.max_len);
  const int64_t eos = kExtract;
  auto greedy = generate(greedy_scorer, {0, 1}, eos, o);
  ASSERT_EQ(greedy.size(), 2u);
  // By hand: append the argmax until EOS or max_len.
  torch::NoGradGuard ng;
  for (size_t e = 0; e < prompts.size(); ++e) {
    std::vector<int64_t> seq(prompts[e].begin(), prompts[e].end()), gen;
    for (int t = 0; t < o.max_len; ++t) {
      auto h = model->forward(torch::tensor(seq, torch::kLong).view({1, -1})).last_hidden_state;
      const int64_t next =
          model->lm_logits(h[0][static_cast<int64_t>(seq.size()) - 1]).argmax().item<int64_t>();
      if (next == eos) break;
      gen.push_back(next);
      seq.push_back(next);
    }
    EXPECT_EQ(greedy[e][0].tokens, gen) << "example " << e;
  }
  // Beam search and sampling run over the same scorer (row parents re-threaded each step).
  o.beam = 4;
  o.n_best = 2;
  GptScorer beam_scorer(model, prompts, o.max_len);
  auto beam = generate(beam_scorer, {0, 1}, eos, o);
  for (size_t e = 0; e < prompts.size(); ++e) {
    ASSERT_EQ(beam[e].size(), 2u);
    EXPECT_GE(beam[e][0].score, beam[e][1].score);
    EXPECT_LE(beam[e][0].tokens.size(), 5u);
  }
  o = SearchOptions{};
  o.sample = true;
  o.max_len = 5;
  o.seed = 3;
  GptScorer s1(model, prompts, o.max_len), s2(model, prompts, o.max_len);
  EXPECT_EQ(generate(s1, {0, 1}, eos, o)[0][0].tokens,
            generate(s2, {0, 1}, eos, o)[0][0].tokens);  // seeded
  EXPECT_THROW(GptScorer(model, prompts, 64), InputError);
}

TEST(GptFinetuneTest, BadTrainingInputsAreInputErrors) {
  GptModel model(GptConfig::tiny(kVocab, 0.0), gpt_heads(GptHead::kClassify, 2));
  std::vector<GptFeature> bad = {GptFeature{{{kStart, 1, kExtract}}, 5}};
  EXPECT_THROW(train_gpt(model, bad, GptHead::kClassify, fast_options(1), 0.5, nullptr, false),
               InputError);
  bad = {GptFeature{{{kStart, 1, kExtract}}, 0},
         GptFeature{{{kStart, kExtract}, {kStart, kExtract}}, 0}};
  EXPECT_THROW(train_gpt(model, bad, GptHead::kClassify, fast_options(1), 0.5, nullptr, false),
               InputError);
  EXPECT_THROW(train_gpt(model, {}, GptHead::kClassify, fast_options(1), 0.5, nullptr, false),
               InputError);
}

// gpt_choice_feature's two cuts (the per-text one is checked against the release's transform_roc
// in gpt_double_heads_parity_test.cc): the document-first cut keeps the question and the answer.
TEST(GptFinetuneTest, ChoiceFeatureCuts) {
  const GptSpecialIds ids{kStart, kDelim, kExtract};
  const std::vector<int32_t> doc = {1, 2, 3, 4, 5, 6}, q = {7, 8};
  const std::vector<std::vector<int32_t>> choices = {{1}, {2, 3, 4}};
  GptFeature f = gpt_choice_feature(doc, q, choices, 1, 9, GptChoiceCut::kDocumentFirst, ids);
  EXPECT_EQ(f.label, 1);
  ASSERT_EQ(f.seqs.size(), 2u);
  // budget 9 − 3 = 6 tokens of document + question + answer.
  EXPECT_EQ(f.seqs[0], (std::vector<int32_t>{kStart, 1, 2, 3, 7, 8, kDelim, 1, kExtract}));
  EXPECT_EQ(f.seqs[1], (std::vector<int32_t>{kStart, 1, 7, 8, kDelim, 2, 3, 4, kExtract}));
  // Nothing left of the document: the longer of answer and question is cut next.
  f = gpt_choice_feature(doc, q, {{1, 2, 3, 4}}, 0, 6, GptChoiceCut::kDocumentFirst, ids);
  EXPECT_EQ(f.seqs[0], (std::vector<int32_t>{kStart, 7, kDelim, 1, 2, kExtract}));
  // Per text: document ++ question and each answer cut to their first 9/2 − 2 = 2 tokens.
  f = gpt_choice_feature(doc, q, choices, 0, 9, GptChoiceCut::kPerText, ids);
  EXPECT_EQ(f.seqs[0], (std::vector<int32_t>{kStart, 1, 2, kDelim, 1, kExtract}));
  EXPECT_EQ(f.seqs[1], (std::vector<int32_t>{kStart, 1, 2, kDelim, 2, 3, kExtract}));
}

}  // namespace
}  // namespace unieval::models::gpt_finetune_test
