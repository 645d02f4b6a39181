// Understanding heads (models/training/nlu.h): tiny models from scratch learn a separable classification
// rule, a monotone regression target and a marked span; batching by length does not change a
// prediction; BERT's best-span search; resume == uninterrupted training; the masked-LM auxiliary
// loss (MlmAux).
#include "models/training/nlu.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <numeric>
#include <random>
#include <set>

#include "core/error.h"
#include "models/io/run_dir.h"
#include "tests/test_util.h"

namespace unieval::models {
namespace {

constexpr int32_t kCls = 2, kSep = 3, kGood = 5, kBad = 6, kMark = 7, kFirstWord = 10;
constexpr int64_t kVocab = 40;

TrainOptions fast_train(int64_t steps) {
  TrainOptions o;
  o.optim.lr = 3e-3;
  o.max_steps = steps;
  o.warmup_ratio = 0.1;
  o.batch_size = 16;
  o.batch_tokens = 16 * 64;
  o.progress = false;
  o.log_every = 0;
  o.seed = 11;
  return o;
}

// The masked-LM auxiliary loss with the tiny vocabulary: [MARK] stands for [MASK].
MlmAux aux_for_tests(double weight) {
  MlmAux aux;
  aux.weight = weight;
  aux.ids.mask = kMark;
  aux.ids.vocab_size = kVocab;
  aux.ids.first_regular = kFirstWord;
  aux.keep = {kCls, kSep, 0};
  return aux;
}

// [CLS] w w ... [SEP] with random filler words; `fill` adds the task's signal.
NluFeature random_row(std::mt19937& rng, int len) {
  NluFeature f;
  f.ids.push_back(kCls);
  for (int i = 0; i < len; ++i)
    f.ids.push_back(kFirstWord + static_cast<int32_t>(rng() % (kVocab - kFirstWord)));
  f.ids.push_back(kSep);
  f.types.assign(f.ids.size(), 0);
  return f;
}

// Label 1 iff the row contains "good" (else it contains "bad"), at a random position.
std::vector<NluFeature> classification_data(int n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<NluFeature> out;
  for (int i = 0; i < n; ++i) {
    NluFeature f = random_row(rng, 3 + static_cast<int>(rng() % 8));
    f.label = static_cast<int64_t>(rng() % 2);
    f.ids[1 + rng() % (f.ids.size() - 2)] = f.label ? kGood : kBad;
    out.push_back(std::move(f));
  }
  return out;
}

// Target = number of "good" tokens (0..4), plus noise-free filler.
std::vector<NluFeature> regression_data(int n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<NluFeature> out;
  for (int i = 0; i < n; ++i) {
    NluFeature f = random_row(rng, 6);
    const int k = static_cast<int>(rng() % 5);
    for (int j = 0; j < k; ++j) f.ids[1 + j] = kGood;
    std::shuffle(f.ids.begin() + 1, f.ids.end() - 1, rng);
    f.target = static_cast<float>(k);
    out.push_back(std::move(f));
  }
  return out;
}

// The answer is the word right after the marker: start = end = marker + 1.
std::vector<NluFeature> span_data(int n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<NluFeature> out;
  for (int i = 0; i < n; ++i) {
    NluFeature f = random_row(rng, 4 + static_cast<int>(rng() % 8));
    const int64_t m = 1 + static_cast<int64_t>(rng() % (f.ids.size() - 3));
    f.ids[m] = kMark;
    f.start = f.end = m + 1;
    out.push_back(std::move(f));
  }
  return out;
}

int64_t argmax(const std::vector<float>& v) {
  return std::max_element(v.begin(), v.end()) - v.begin();
}

TEST(NluTest, ClassificationLearnsASeparableRule) {
  torch::manual_seed(1);
  UnilmModel model(BertConfig::tiny(kVocab, 0.0), nlu_heads(NluHead::kClassify, 2));
  auto train = classification_data(400, 1), test = classification_data(200, 2);
  TrainResult r = train_nlu(model, train, NluHead::kClassify, fast_train(150), nullptr, false);
  EXPECT_TRUE(r.finished);
  EXPECT_LT(r.last_loss, r.first_loss);
  auto p = predict_nlu(model, test, NluHead::kClassify, {});
  int correct = 0;
  for (size_t i = 0; i < test.size(); ++i) correct += argmax(p[i].logits) == test[i].label;
  EXPECT_GE(correct / double(test.size()), 0.95) << correct;
}

TEST(NluTest, RegressionLearnsAMonotoneTarget) {
  torch::manual_seed(2);
  UnilmModel model(BertConfig::tiny(kVocab, 0.0), nlu_heads(NluHead::kRegress, 1));
  auto train = regression_data(400, 3), test = regression_data(200, 4);
  train_nlu(model, train, NluHead::kRegress, fast_train(200), nullptr, false);
  auto p = predict_nlu(model, test, NluHead::kRegress, {});
  double mx = 0, my = 0;
  for (size_t i = 0; i < test.size(); ++i) mx += p[i].logits.at(0), my += test[i].target;
  mx /= double(test.size());
  my /= double(test.size());
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < test.size(); ++i) {
    const double dx = p[i].logits[0] - mx, dy = test[i].target - my;
    sxy += dx * dy, sxx += dx * dx, syy += dy * dy;
  }
  EXPECT_GE(sxy / std::sqrt(sxx * syy), 0.9);
}

TEST(NluTest, SpanExtractionPointsAtTheMarkedAnswer) {
  torch::manual_seed(3);
  UnilmModel model(BertConfig::tiny(kVocab, 0.0), nlu_heads(NluHead::kSpan, 0));
  auto train = span_data(400, 5), test = span_data(200, 6);
  train_nlu(model, train, NluHead::kSpan, fast_train(500), nullptr, false);
  auto p = predict_nlu(model, test, NluHead::kSpan, {});
  int exact = 0;
  for (size_t i = 0; i < test.size(); ++i) {
    ASSERT_EQ(p[i].start.size(), test[i].ids.size());  // no padding positions come back
    auto c = best_spans(p[i].start, p[i].end, {}, {}, 20, 30);
    ASSERT_FALSE(c.empty());
    exact += c.front().start == test[i].start && c.front().end == test[i].end;
  }
  EXPECT_GE(exact / double(test.size()), 0.9) << exact;
}

TEST(NluTest, LengthSortedBatchesGiveTheSamePredictions) {
  torch::manual_seed(4);
  UnilmModel model(BertConfig::tiny(kVocab, 0.0), nlu_heads(NluHead::kSpanClass, 4));
  auto rows = span_data(37, 7);
  for (size_t i = 0; i < rows.size(); ++i) rows[i].label = static_cast<int64_t>(i % 4);
  PredictOptions one;
  one.batch_size = 1;
  PredictOptions many;
  many.batch_size = 8;
  auto a = predict_nlu(model, rows, NluHead::kSpanClass, one);
  auto b = predict_nlu(model, rows, NluHead::kSpanClass, many);
  ASSERT_EQ(a.size(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    ASSERT_EQ(a[i].logits.size(), 4u);
    ASSERT_EQ(b[i].start.size(), rows[i].ids.size());
    for (size_t k = 0; k < 4; ++k) EXPECT_NEAR(a[i].logits[k], b[i].logits[k], 1e-4);
    for (size_t t = 0; t < rows[i].ids.size(); ++t) EXPECT_NEAR(a[i].start[t], b[i].start[t], 1e-4);
  }
  // The span+class loss trains both heads.
  auto r = train_nlu(model, rows, NluHead::kSpanClass, fast_train(5), nullptr, false);
  EXPECT_TRUE(std::isfinite(r.last_loss));
}

TEST(NluTest, BestSpansFollowBertsFilter) {
  //            0     1    2    3    4    5
  std::vector<float> s = {5.0f, 1.0f, 3.0f, 0.5f, 2.0f, 0.0f};
  std::vector<float> e = {5.0f, 0.0f, 1.0f, 4.0f, 2.5f, 0.0f};
  // Position 0 ([CLS]) is never a span by default; end before start and too long are dropped.
  auto c = best_spans(s, e, {}, {}, 20, 2);
  ASSERT_FALSE(c.empty());
  EXPECT_EQ(c.front().start, 2);
  EXPECT_EQ(c.front().end, 3);
  EXPECT_DOUBLE_EQ(c.front().score, 7.0);
  for (const auto& x : c) {
    EXPECT_GE(x.end, x.start);
    EXPECT_LE(x.end - x.start + 1, 2);
    EXPECT_GT(x.start, 0);
  }
  // Allowed positions restrict starts and ends.
  std::vector<char> allow_start = {0, 0, 0, 0, 1, 0}, allow_end = {0, 0, 0, 1, 1, 1};
  c = best_spans(s, e, allow_start, allow_end, 20, 30);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c.front().start, 4);
  EXPECT_EQ(c.front().end, 4);
  NluPrediction p;
  p.start = s;
  p.end = e;
  EXPECT_DOUBLE_EQ(null_score(p), 10.0);
}

// With and without word dropout (its draws come from (seed, step, micro-batch), not a stream).
// --length-groups: each batch as length-sorted micro-batches weighted by their rows gives, without
// dropout, the weights of the whole batches (rows of 3-10 words, so the split has something to sort).
TEST(NluTest, LengthGroupsGiveTheUpdatesOfTheWholeBatches) {
  const auto data = classification_data(96, 4);
  std::map<int64_t, UnilmModel> trained;
  for (const int64_t groups : {1, 3}) {
    torch::manual_seed(5);
    UnilmModel m(BertConfig::tiny(kVocab, 0.0), nlu_heads(NluHead::kClassify, 2));
    TrainOptions o = fast_train(6);
    o.length_groups = groups;
    ASSERT_TRUE(train_nlu(m, data, NluHead::kClassify, o, nullptr, false).finished);
    trained.emplace(groups, m);
  }
  auto a = trained.at(1)->named_parameters(), b = trained.at(3)->named_parameters();
  for (const auto& item : a)
    EXPECT_TRUE(torch::allclose(item.value(), b[item.key()], 1e-4, 1e-6)) << item.key();
  TrainOptions bad = fast_train(1);
  bad.length_groups = 0;
  UnilmModel m(BertConfig::tiny(kVocab, 0.0), nlu_heads(NluHead::kClassify, 2));
  EXPECT_THROW(train_nlu(m, data, NluHead::kClassify, bad, nullptr, false), InputError);
}

TEST(NluTest, ResumeContinuesLikeAnUninterruptedRun) {
  TokenDropout word_dropout;
  word_dropout.prob = 0.3;
  word_dropout.replacement = kMark;
  word_dropout.keep = {kCls, kSep, 0};
  // Word dropout and the masked-LM auxiliary loss: their draws are part of the data stream.
  const std::vector<std::pair<TokenDropout, MlmAux>> settings = {
      {TokenDropout{}, MlmAux{}}, {word_dropout, MlmAux{}}, {word_dropout, aux_for_tests(0.7)}};
  for (const auto& [td, aux] : settings) {
    SCOPED_TRACE(td.prob + aux.weight);
    testing::TempDir tmp;
    auto data = classification_data(64, 9);
    TrainOptions o = fast_train(8);
    o.optim.lr = 1e-3;
    auto make = [&]() {
      torch::manual_seed(5);
      return UnilmModel(BertConfig::tiny(kVocab, 0.1),
                        nlu_heads(NluHead::kClassify, 2, aux.weight > 0));
    };
    UnilmModel full = make();
    RunDir rf((tmp.path() / "full").string());
    rf.create(o.to_json(), BertConfig::tiny(kVocab, 0.1), "v\n");
    train_nlu(full, data, NluHead::kClassify, o, &rf, false, 0, td, aux);
    UnilmModel part = make();
    RunDir rp((tmp.path() / "part").string());
    rp.create(o.to_json(), BertConfig::tiny(kVocab, 0.1), "v\n");
    TrainOptions first = o;
    first.stop_after = 3;
    auto r1 = train_nlu(part, data, NluHead::kClassify, first, &rp, false, 0, td, aux);
    EXPECT_FALSE(r1.finished);
    UnilmModel resumed = make();
    auto r2 = train_nlu(resumed, data, NluHead::kClassify, o, &rp, true, 0, td, aux);
    EXPECT_TRUE(r2.finished);
    auto a = full->named_parameters(), b = resumed->named_parameters();
    for (const auto& item : a) EXPECT_TRUE(torch::equal(item.value(), b[item.key()])) << item.key();
  }
}

// Word dropout replaces about prob of the droppable tokens, never a kept id or a padding position,
// draws the same from the same generator state, and changes training (same seed, other weights).
TEST(NluTest, TokenDropoutReplacesOnlyDroppableTokensAtItsRate) {
  auto rows = classification_data(400, 3);
  std::vector<size_t> idx(rows.size());
  std::iota(idx.begin(), idx.end(), 0);
  const NluBatch base = make_nlu_batch(rows, idx, /*pad_id=*/0);
  TokenDropout td;
  td.prob = 0.25;
  td.replacement = kMark;
  td.keep = {kCls, kSep, 0};
  NluBatch a = make_nlu_batch(rows, idx, 0), b = make_nlu_batch(rows, idx, 0);
  std::mt19937_64 r1(7), r2(7);
  const int64_t dropped = drop_tokens(a, td, r1);
  EXPECT_EQ(drop_tokens(b, td, r2), dropped);
  EXPECT_TRUE(torch::equal(a.input_ids, b.input_ids));
  int64_t droppable = 0, changed = 0;
  auto before = base.input_ids.contiguous(), after = a.input_ids.contiguous();
  auto mask = base.attention_mask.contiguous();
  for (int64_t i = 0; i < before.numel(); ++i) {
    const int64_t x = before.data_ptr<int64_t>()[i], y = after.data_ptr<int64_t>()[i];
    const bool kept = mask.data_ptr<int64_t>()[i] == 0 || x == kCls || x == kSep;
    if (kept) {
      EXPECT_EQ(x, y) << "position " << i;
      continue;
    }
    ++droppable;
    if (x != y) {
      ++changed;
      EXPECT_EQ(y, kMark);
    }
  }
  EXPECT_EQ(changed, dropped);
  ASSERT_GT(droppable, 2000);
  // Binomial(droppable, 0.25): 5 standard deviations either side.
  const double mean = 0.25 * droppable, sd = std::sqrt(droppable * 0.25 * 0.75);
  EXPECT_NEAR(double(dropped), mean, 5 * sd);
  TokenDropout off;
  NluBatch c = make_nlu_batch(rows, idx, 0);
  std::mt19937_64 r3(7);
  EXPECT_EQ(drop_tokens(c, off, r3), 0);
  EXPECT_TRUE(torch::equal(c.input_ids, base.input_ids));

  auto train_with = [&](const TokenDropout& t) {
    torch::manual_seed(2);
    UnilmModel m(BertConfig::tiny(kVocab, 0.0), nlu_heads(NluHead::kClassify, 2));
    train_nlu(m, rows, NluHead::kClassify, fast_train(6), nullptr, false, 0, t);
    return m->named_parameters()["classifier.weight"].clone();
  };
  EXPECT_TRUE(torch::equal(train_with(td), train_with(td)));
  EXPECT_FALSE(torch::equal(train_with(td), train_with(off)));
  TokenDropout bad = td;
  bad.prob = 1.0;
  UnilmModel m(BertConfig::tiny(kVocab, 0.0), nlu_heads(NluHead::kClassify, 2));
  EXPECT_THROW(train_nlu(m, rows, NluHead::kClassify, fast_train(1), nullptr, false, 0, bad),
               InputError);
  bad.prob = 0.1;
  bad.replacement = -1;
  EXPECT_THROW(train_nlu(m, rows, NluHead::kClassify, fast_train(1), nullptr, false, 0, bad),
               InputError);
}

// The auxiliary loss's masks: only text positions (never [CLS], [SEP] or padding), per row
// min(max_pred, max(1, round(0.15 x text tokens))) positions, labels the original ids, about 80%
// of them [MASK]; the same generator state draws the same; the batch itself is left as it was.
TEST(NluTest, MlmAuxMasksOnlyTextPositionsAtItsRate) {
  auto rows = classification_data(400, 4);
  std::vector<size_t> idx(rows.size());
  std::iota(idx.begin(), idx.end(), 0);
  const NluBatch batch = make_nlu_batch(rows, idx, /*pad_id=*/0);
  const torch::Tensor before = batch.input_ids.clone();
  const MlmAux aux = aux_for_tests(1.0);
  std::mt19937_64 r1(3), r2(3);
  torch::Tensor index, labels, index2, labels2;
  const torch::Tensor masked = mlm_aux_inputs(batch, aux, r1, index, labels);
  const torch::Tensor masked2 = mlm_aux_inputs(batch, aux, r2, index2, labels2);
  EXPECT_TRUE(torch::equal(masked, masked2));
  EXPECT_TRUE(torch::equal(index, index2));
  EXPECT_TRUE(torch::equal(batch.input_ids, before));
  const int64_t T = batch.input_ids.size(1);
  auto in = before.accessor<int64_t, 2>();
  auto out = masked.accessor<int64_t, 2>();
  auto ix = index.accessor<int64_t, 1>();
  auto lb = labels.accessor<int64_t, 1>();
  std::map<int64_t, int64_t> per_row;
  std::set<int64_t> chosen;
  int64_t as_mask = 0;
  for (int64_t k = 0; k < index.size(0); ++k) {
    const int64_t b = ix[k] / T, t = ix[k] % T;
    ASSERT_LT(t, static_cast<int64_t>(rows[b].ids.size()));
    EXPECT_NE(in[b][t], kCls);
    EXPECT_NE(in[b][t], kSep);
    EXPECT_EQ(lb[k], in[b][t]);
    as_mask += out[b][t] == kMark;
    ++per_row[b];
    chosen.insert(ix[k]);
  }
  EXPECT_EQ(chosen.size(), static_cast<size_t>(index.size(0)));
  for (int64_t b = 0; b < batch.input_ids.size(0); ++b) {
    const int64_t text = static_cast<int64_t>(rows[b].ids.size()) - 2;
    EXPECT_EQ(per_row[b], std::min<int64_t>(20, std::max<int64_t>(1, std::llround(0.15 * text))))
        << "row " << b;
    for (int64_t t = 0; t < T; ++t)
      if (!chosen.count(b * T + t)) {
        EXPECT_EQ(out[b][t], in[b][t]) << b << "," << t;
      }
  }
  const double n = double(index.size(0));
  ASSERT_GT(n, 300);
  EXPECT_NEAR(as_mask / n, 0.8, 5 * std::sqrt(0.8 * 0.2 / n));
}

// With the auxiliary loss: the log's loss is task_loss + weight x mlm_loss, the MLM head trains,
// the classifier still learns the rule; weight 0 trains exactly as without it; a bad weight or a
// model without the MLM head is an InputError.
TEST(NluTest, MlmAuxAddsAMaskedLmLossThatTrainsTheMlmHead) {
  auto train = classification_data(400, 1), test = classification_data(200, 2);
  testing::TempDir tmp;
  torch::manual_seed(1);
  UnilmModel model(BertConfig::tiny(kVocab, 0.0), nlu_heads(NluHead::kClassify, 2, true));
  const torch::Tensor head0 =
      model->named_parameters()["cls.predictions.transform.dense.weight"].clone();
  TrainOptions o = fast_train(150);
  o.log_every = 1;
  RunDir rd((tmp.path() / "aux").string());
  rd.create(o.to_json(), BertConfig::tiny(kVocab, 0.0), "v\n");
  TrainResult r =
      train_nlu(model, train, NluHead::kClassify, o, &rd, false, 0, {}, aux_for_tests(0.5));
  EXPECT_TRUE(r.finished);
  EXPECT_FALSE(
      torch::equal(model->named_parameters()["cls.predictions.transform.dense.weight"], head0));
  std::vector<double> mlm;
  for (const nlohmann::json& j : testing::read_jsonl(rd.file("log.jsonl"))) {
    if (!j.contains("step")) continue;
    ASSERT_TRUE(j.contains("task_loss") && j.contains("mlm_loss")) << j.dump();
    EXPECT_NEAR(j["loss"].get<double>(),
                j["task_loss"].get<double>() + 0.5 * j["mlm_loss"].get<double>(), 1e-4)
        << j.dump();
    mlm.push_back(j["mlm_loss"].get<double>());
  }
  ASSERT_EQ(mlm.size(), 150u);
  // Filler words are uniform over 30 ids: the masked-LM loss falls from ~ln(40) towards ln(30).
  const double first = std::accumulate(mlm.begin(), mlm.begin() + 10, 0.0) / 10;
  const double last = std::accumulate(mlm.end() - 10, mlm.end(), 0.0) / 10;
  EXPECT_LT(last, first - 0.1) << first << " " << last;
  auto p = predict_nlu(model, test, NluHead::kClassify, {});
  int correct = 0;
  for (size_t i = 0; i < test.size(); ++i) correct += argmax(p[i].logits) == test[i].label;
  EXPECT_GE(correct / double(test.size()), 0.95) << correct;

  auto classifier_after = [&](const MlmAux& aux, bool mlm_head) {
    torch::manual_seed(2);
    UnilmModel m(BertConfig::tiny(kVocab, 0.1), nlu_heads(NluHead::kClassify, 2, mlm_head));
    train_nlu(m, train, NluHead::kClassify, fast_train(6), nullptr, false, 0, {}, aux);
    return m->named_parameters()["classifier.weight"].clone();
  };
  EXPECT_TRUE(
      torch::equal(classifier_after(aux_for_tests(0.0), false), classifier_after({}, false)));
  EXPECT_FALSE(
      torch::equal(classifier_after(aux_for_tests(1.0), true), classifier_after({}, true)));
  UnilmModel no_head(BertConfig::tiny(kVocab, 0.0), nlu_heads(NluHead::kClassify, 2));
  EXPECT_THROW(train_nlu(no_head, train, NluHead::kClassify, fast_train(1), nullptr, false, 0, {},
                         aux_for_tests(1.0)),
               InputError);
  for (double bad : {-0.5, std::nan("")}) {
    UnilmModel m(BertConfig::tiny(kVocab, 0.0), nlu_heads(NluHead::kClassify, 2, true));
    EXPECT_THROW(train_nlu(m, train, NluHead::kClassify, fast_train(1), nullptr, false, 0, {},
                           aux_for_tests(bad)),
                 InputError);
  }
}

TEST(NluTest, BadTargetsAreInputErrors) {
  UnilmModel model(BertConfig::tiny(kVocab, 0.0), nlu_heads(NluHead::kSpan, 0));
  auto rows = span_data(4, 1);
  rows[2].end = 99;
  EXPECT_THROW(train_nlu(model, rows, NluHead::kSpan, fast_train(1), nullptr, false), InputError);
  UnilmModel cls(BertConfig::tiny(kVocab, 0.0), nlu_heads(NluHead::kClassify, 2));
  auto c = classification_data(4, 1);
  c[0].label = 2;
  EXPECT_THROW(train_nlu(cls, c, NluHead::kClassify, fast_train(1), nullptr, false), InputError);
  EXPECT_THROW(train_nlu(cls, {}, NluHead::kClassify, fast_train(1), nullptr, false), InputError);
  EXPECT_THROW(nlu_heads(NluHead::kClassify, 1), InputError);
}

// predict_nlu at batch 1 (no padding) and batch 8 (length-sorted, padded) gives the same logits.
void expect_same_logits_at_batch_1_and_8(UnilmModel& model) {
  auto rows = classification_data(29, 9);
  PredictOptions one, many;
  one.batch_size = 1;
  many.batch_size = 8;
  auto a = predict_nlu(model, rows, NluHead::kClassify, one),
       b = predict_nlu(model, rows, NluHead::kClassify, many);
  for (size_t i = 0; i < rows.size(); ++i)
    for (size_t k = 0; k < 2; ++k) EXPECT_NEAR(a[i].logits[k], b[i].logits[k], 1e-4);
}

// unieval_pooling "mean" (models/nn/config.h): the pooler reads the mean of the unmasked positions,
// so padding a row changes nothing; "cls" is BERT's x[:, 0]. The config round-trips and refuses
// other values.
TEST(NluTest, MeanPoolingAveragesTheUnmaskedPositionsOnly) {
  torch::manual_seed(5);
  BertConfig cfg = BertConfig::tiny(kVocab, 0.0);
  cfg.pooling = "mean";
  UnilmModel model(cfg, nlu_heads(NluHead::kClassify, 2));
  model->eval();
  torch::NoGradGuard ng;
  // Row 0 has 5 real tokens, row 1 has 3 and 2 padding positions.
  auto ids = torch::tensor({2, 11, 12, 13, 3, 2, 14, 3, 0, 0}, torch::kInt64).view({2, 5});
  auto mask = torch::tensor({1, 1, 1, 1, 1, 1, 1, 1, 0, 0}, torch::kInt64).view({2, 5});
  auto types = torch::zeros_like(ids);
  BertOutput o = model->forward(ids, types, mask);
  auto h = o.last_hidden_state;
  auto dense = model->bert->pooler->dense;
  auto want0 = torch::tanh(dense(h[0].mean(0)));
  auto want1 = torch::tanh(dense(h[1].slice(0, 0, 3).mean(0)));
  EXPECT_TRUE(torch::allclose(o.pooler_output[0], want0, 1e-5, 1e-6));
  EXPECT_TRUE(torch::allclose(o.pooler_output[1], want1, 1e-5, 1e-6));
  // The same row alone, unpadded, pools to the same vector.
  BertOutput alone =
      model->forward(ids[1].slice(0, 0, 3).unsqueeze(0), types[1].slice(0, 0, 3).unsqueeze(0),
                     mask[1].slice(0, 0, 3).unsqueeze(0));
  EXPECT_TRUE(torch::allclose(alone.pooler_output[0], o.pooler_output[1], 1e-5, 1e-6));
  // "cls" on the same weights: BERT's first position, which differs from the mean.
  BertConfig cls_cfg = BertConfig::tiny(kVocab, 0.0);
  UnilmModel cls(cls_cfg, nlu_heads(NluHead::kClassify, 2));
  {
    auto src = model->named_parameters();
    for (auto& item : cls->named_parameters()) item.value().copy_(src[item.key()]);
  }
  cls->eval();
  BertOutput c = cls->forward(ids, types, mask);
  EXPECT_TRUE(torch::allclose(
      c.pooler_output, torch::tanh(cls->bert->pooler->dense(c.last_hidden_state.select(1, 0))),
      1e-5, 1e-6));
  EXPECT_FALSE(torch::allclose(c.pooler_output, o.pooler_output, 1e-3, 1e-3));
  // Padding-invariant predictions through predict_nlu's length batching.
  expect_same_logits_at_batch_1_and_8(model);
}

// unieval_pooling "max": the per-feature maximum over the unmasked positions only; padding a row
// changes nothing, even where the padded positions' states are larger than every real one.
TEST(NluTest, MaxPoolingTakesTheFeatureMaximumOfTheUnmaskedPositionsOnly) {
  torch::manual_seed(6);
  BertConfig cfg = BertConfig::tiny(kVocab, 0.0);
  cfg.pooling = "max";
  UnilmModel model(cfg, nlu_heads(NluHead::kClassify, 2));
  model->eval();
  torch::NoGradGuard ng;
  auto ids = torch::tensor({2, 11, 12, 13, 3, 2, 14, 3, 0, 0}, torch::kInt64).view({2, 5});
  auto mask = torch::tensor({1, 1, 1, 1, 1, 1, 1, 1, 0, 0}, torch::kInt64).view({2, 5});
  auto types = torch::zeros_like(ids);
  BertOutput o = model->forward(ids, types, mask);
  auto h = o.last_hidden_state;
  auto dense = model->bert->pooler->dense;
  auto want0 = torch::tanh(dense(std::get<0>(h[0].max(0))));
  auto want1 = torch::tanh(dense(std::get<0>(h[1].slice(0, 0, 3).max(0))));
  EXPECT_TRUE(torch::allclose(o.pooler_output[0], want0, 1e-5, 1e-6));
  EXPECT_TRUE(torch::allclose(o.pooler_output[1], want1, 1e-5, 1e-6));
  // Not the maximum over all positions, padding included (it differs for row 1).
  EXPECT_FALSE(torch::allclose(o.pooler_output[1], torch::tanh(dense(std::get<0>(h[1].max(0)))),
                               1e-4, 1e-5));
  // The pooler alone: padded states far above the real ones are ignored; an all-masked row is 0.
  auto states = torch::tensor({1.0f, -2.0f, 3.0f, 0.5f, 100.0f, 100.0f}).view({1, 3, 2});
  auto m = torch::tensor({1, 1, 0}, torch::kInt64).view({1, 3});
  BertConfig two = cfg;
  two.hidden_size = 2;
  BertPooler pooler(two);
  auto got = pooler->forward(states, m);
  auto want = torch::tanh(pooler->dense(torch::tensor({3.0f, 0.5f}).view({1, 2})));
  EXPECT_TRUE(torch::allclose(got, want, 1e-6, 1e-7));
  auto none = pooler->forward(states, torch::zeros({1, 3}, torch::kInt64));
  EXPECT_TRUE(torch::allclose(none, torch::tanh(pooler->dense(torch::zeros({1, 2}))), 1e-6, 1e-7));
  // Padding-invariant predictions through predict_nlu's length batching.
  expect_same_logits_at_batch_1_and_8(model);
}

TEST(NluTest, PoolingConfigRoundTripsAndRefusesOtherValues) {
  BertConfig cfg = BertConfig::tiny(kVocab, 0.0);
  EXPECT_FALSE(
      cfg.to_json().contains("unieval_pooling"));  // HF's layout unchanged for BERT's pooler
  cfg.pooling = "mean";
  const auto j = cfg.to_json();
  EXPECT_EQ(j.at("unieval_pooling"), "mean");
  EXPECT_EQ(BertConfig::from_json(j).pooling, "mean");
  EXPECT_TRUE(BertConfig::from_json(j).unknown_fields.empty());
  cfg.pooling = "max";
  EXPECT_EQ(BertConfig::from_json(cfg.to_json()).pooling, "max");
  auto bad = j;
  bad["unieval_pooling"] = "min";
  EXPECT_THROW(BertConfig::from_json(bad, "c.json"), InputError);
  bad["unieval_pooling"] = 3;
  EXPECT_THROW(BertConfig::from_json(bad, "c.json"), InputError);
}

}  // namespace
}  // namespace unieval::models
