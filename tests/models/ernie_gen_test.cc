// ERNIE-GEN (models/training/ernie_gen.h): the mask matrices of Figure 3d written out by hand, flows that
// never see what their mask forbids, the shared contextual flow, infilling decoding against the
// training-time word flow and against exhaustive search, the span vocabulary and the fragments.
#include "models/training/ernie_gen.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>

#include "core/error.h"
#include "models/decoding/search.h"
#include "models/decoding/search_unilm.h"
#include "tests/models/tiny_ids.h"

// unieval::models::ernie_gen_test: its helpers' names are used by other test files of the same unity batch.
namespace unieval::models::ernie_gen_test {
namespace {

using Matrix = std::vector<std::vector<int64_t>>;
using Ids = std::vector<int64_t>;

Ids vec(const torch::Tensor& t) {
  auto c = t.to(torch::kLong).contiguous();
  return Ids(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
}

Matrix rows(const torch::Tensor& m) {
  auto t = m.to(torch::kLong).contiguous();
  Matrix out(t.size(0), std::vector<int64_t>(t.size(1)));
  for (int64_t i = 0; i < t.size(0); ++i)
    for (int64_t j = 0; j < t.size(1); ++j) out[i][j] = t[i][j].item<int64_t>();
  return out;
}

// Source s1 s2 s3, target t1 t2 t3 t4, spans [t1 t2] [t3] [t4] (the example).
TEST(ErnieGenMasksTest, FigureThreeMatricesByHand) {
  const MultiFlowMasks m = multi_flow_masks(3, 4, {0, 2, 3});
  // M_C: the source sees the source; t_i sees the source and t_<=i.
  const Matrix context = {
      // s1 s2 s3 t1 t2 t3 t4
      {1, 1, 1, 0, 0, 0, 0},  // s1
      {1, 1, 1, 0, 0, 0, 0},  // s2
      {1, 1, 1, 0, 0, 0, 0},  // s3
      {1, 1, 1, 1, 0, 0, 0},  // t1
      {1, 1, 1, 1, 1, 0, 0},  // t2
      {1, 1, 1, 1, 1, 1, 0},  // t3
      {1, 1, 1, 1, 1, 1, 1},  // t4
  };
  // M_W: a_i sees the source, t_<i and itself (Eq. 3).
  const Matrix word = {
      // s1 s2 s3 t1 t2 t3 t4 | a1 a2 a3 a4
      {1, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0},  // a1
      {1, 1, 1, 1, 0, 0, 0, 0, 1, 0, 0},  // a2
      {1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0},  // a3
      {1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},  // a4
  };
  // M_S: a_j of the span starting at b sees the source, t_<b and itself (Eq. 4): a1 and a2 (span
  // [t1 t2]) both see only the source.
  const Matrix span = {
      {1, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0},  // a1
      {1, 1, 1, 0, 0, 0, 0, 0, 1, 0, 0},  // a2
      {1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0},  // a3
      {1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},  // a4
  };
  EXPECT_EQ(rows(m.context), context);
  EXPECT_EQ(rows(m.word), word);
  EXPECT_EQ(rows(m.span), span);
  // One-token spans make the span flow the word flow.
  EXPECT_EQ(rows(multi_flow_masks(3, 4, {0, 1, 2, 3}).span), word);
  EXPECT_THROW(multi_flow_masks(3, 4, {1, 2}), InputError);
  EXPECT_THROW(multi_flow_masks(3, 4, {0, 3, 2}), InputError);
}

constexpr int64_t kVocab = 40;

SpecialIds tiny_ids(int64_t vocab = kVocab) {
  return testing::tiny_special_ids(vocab, /*with_attn=*/true);
}

UnilmModel random_model(int64_t vocab = kVocab) {
  torch::manual_seed(5);
  UnilmHeads heads;
  heads.pooler = false;
  UnilmModel m(BertConfig::tiny(vocab, 0.0), heads);
  torch::NoGradGuard g;
  for (auto& p : m->parameters())
    if (p.dim() == 2) p.mul_(10.0);  // far from uniform distributions
  m->eval();
  return m;
}

std::vector<Seq2SeqExample> examples() {
  return {{{6, 7, 8}, {9, 10, 11, 12}}, {{13, 14, 15, 16, 17}, {18, 19}}, {{20}, {21, 22, 23}}};
}

ErnieGenBatch batch_of(const std::vector<Seq2SeqExample>& ex, double lambda, double noise,
                       uint64_t seed, const SpanVocab* vocab, bool bos = false) {
  ErnieGenOptions eg;
  eg.lambda = lambda;
  eg.noise_prob = noise;
  std::vector<size_t> idx(ex.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::mt19937_64 rng(seed);
  Seq2SeqDataOptions data;
  data.target_bos = bos;
  return make_ernie_gen_batch(ex, idx, data, eg, tiny_ids(), vocab, rng);
}

// A span vocabulary in which (9, 10) is a bigram: spans of example 0 are [9 10] [11] [12] [SEP].
SpanVocab pair_vocab() {
  return SpanVocab::build({{9, 10, 30}, {9, 10, 31}, {9, 10, 32}, {33, 34, 35}}, 1, 0);
}

TEST(ErnieGenBatchTest, LayoutPositionsLabelsAndNoise) {
  const SpanVocab sv = pair_vocab();
  ASSERT_TRUE(sv.has_bigram(9, 10));
  ErnieGenBatch b = batch_of(examples(), 0.5, 0.0, 1, &sv);
  // X of example 0: [CLS] 6 7 8 [SEP] 9 10 11 12 [SEP]; its [ATTN]s sit at the target's positions.
  EXPECT_EQ(vec(b.context.input_ids[0].slice(0, 0, 10)), (Ids{2, 6, 7, 8, 3, 9, 10, 11, 12, 3}));
  EXPECT_EQ(vec(b.word.input_ids[0]), (Ids{5, 5, 5, 5, 5}));
  EXPECT_EQ(vec(b.word.position_ids[0]), (Ids{5, 6, 7, 8, 9}));
  EXPECT_EQ(b.word.token_type_ids[0][0].item<int64_t>(), 1);
  EXPECT_EQ(b.context.token_type_ids[0][4].item<int64_t>(), 0);
  EXPECT_EQ(b.context.token_type_ids[0][5].item<int64_t>(), 1);
  // Labels: every target word and the closing [SEP], example by example.
  EXPECT_EQ(vec(b.labels), (Ids{9, 10, 11, 12, 3, 18, 19, 3, 21, 22, 23, 3}));
  // Span flow of example 0: a_6 (t2 = 10) shares t1's span: it sees X up to the source only.
  const int64_t Tx = b.context.input_ids.size(1);
  EXPECT_EQ(b.span.mask[0][1].slice(0, 0, Tx).sum().item<int64_t>(), 5);
  EXPECT_EQ(b.word.mask[0][1].slice(0, 0, Tx).sum().item<int64_t>(), 6);
  // Noise: floor(0.5 * 4) = 2 words of example 0 replaced, none of the [SEP]s, labels unchanged.
  ErnieGenBatch n = batch_of(examples(), 1.0, 0.5, 7, nullptr);
  EXPECT_EQ(n.noised[0].sum().item<int64_t>(), 2);
  EXPECT_EQ(n.noised[1].sum().item<int64_t>(), 1);
  EXPECT_EQ(n.noised[0][9].item<int64_t>(), 0);
  EXPECT_EQ(vec(n.labels), vec(b.labels));
  EXPECT_FALSE(n.span.mask.defined());
  // Same seed, same noise.
  EXPECT_TRUE(torch::equal(batch_of(examples(), 1.0, 0.5, 7, nullptr).context.input_ids,
                           n.context.input_ids));
  EXPECT_THROW(batch_of(examples(), 0.5, 0.0, 1, nullptr), InputError);
}

// The paper code's rule (noise_rule per_position): each position of "S2 [SEP]" by itself with
// probability rho, the closing [SEP] included, by any vocabulary token (special ones included);
// the source, the target's [CLS] and the labels never change. Counted over 600 batches
// (7,200 target positions, 1,800 of them [SEP]s): within 5 standard deviations of rho.
TEST(ErnieGenBatchTest, PerPositionNoiseIsThePaperCodesRule) {
  const double rho = 0.3;
  const ErnieGenBatch clean = batch_of(examples(), 1.0, 0.0, 1, nullptr, /*bos=*/true);
  int64_t positions = 0, noised = 0, seps = 0, seps_noised = 0, special = 0;
  std::set<int64_t> counts_of_example0;
  for (uint64_t seed = 0; seed < 600; ++seed) {
    ErnieGenOptions eg;
    eg.noise_prob = rho;
    eg.noise_rule = NoiseRule::kPerPosition;
    std::vector<size_t> idx = {0, 1, 2};
    std::mt19937_64 rng(seed);
    Seq2SeqDataOptions data;
    data.target_bos = true;
    const ErnieGenBatch b =
        make_ernie_gen_batch(examples(), idx, data, eg, tiny_ids(), nullptr, rng);
    ASSERT_TRUE(torch::equal(b.labels, clean.labels));
    for (int64_t e = 0; e < 3; ++e) {
      const Seq2SeqExample ex = examples()[static_cast<size_t>(e)];
      const int64_t first = static_cast<int64_t>(ex.src.size()) + 3;  // after [CLS] S1 [SEP] [CLS]
      const int64_t last = first + static_cast<int64_t>(ex.tgt.size());  // the closing [SEP]
      int64_t n = 0;
      for (int64_t t = 0; t < b.context.input_ids.size(1); ++t) {
        const bool changed = b.noised[e][t].item<int64_t>() == 1;
        if (t < first || t > last) {
          ASSERT_FALSE(changed) << "example " << e << " position " << t;
          ASSERT_EQ(b.context.input_ids[e][t].item<int64_t>(),
                    clean.context.input_ids[e][t].item<int64_t>());
          continue;
        }
        ++positions, seps += t == last;
        if (!changed) continue;
        ++noised, ++n, seps_noised += t == last;
        special += b.context.input_ids[e][t].item<int64_t>() < tiny_ids().first_regular;
      }
      if (e == 0) counts_of_example0.insert(n);
    }
  }
  ASSERT_EQ(positions, 600 * 12);
  auto within = [](int64_t k, int64_t n, double p) {
    return std::abs(double(k) - n * p) < 5 * std::sqrt(n * p * (1 - p));
  };
  EXPECT_TRUE(within(noised, positions, rho)) << noised << " of " << positions;
  EXPECT_TRUE(within(seps_noised, seps, rho)) << seps_noised << " of " << seps;
  // Any token: the 5 special ids of 40 come up (about 1/8 of the noised positions).
  EXPECT_TRUE(within(special, noised, 5.0 / kVocab)) << special << " of " << noised;
  EXPECT_GE(counts_of_example0.size(), 4u);  // not a fixed count: 0..5 noised of 5 positions
  // The default rule: floor(rho * 4) = 1 word of example 0, never a [SEP].
  EXPECT_EQ(batch_of(examples(), 1.0, rho, 3, nullptr).noised[0].sum().item<int64_t>(), 1);
  EXPECT_EQ(parse_noise_rule("per_position"), NoiseRule::kPerPosition);
  EXPECT_THROW(parse_noise_rule("bernoulli"), InputError);
}

TEST(ErnieGenForwardTest, SharedContextualFlowEqualsOneConcatenatedPass) {
  UnilmModel m = random_model();
  const SpanVocab sv = pair_vocab();
  ErnieGenBatch b = batch_of(examples(), 0.5, 0.0, 1, &sv);
  torch::NoGradGuard g;
  MultiFlowOutput out = multi_flow_forward(m, b.context, {b.word, b.span});
  // The same attention as one sequence [X, A_W, A_S] under the block mask of Eq. 5.
  const int64_t B = 3, Tx = b.context.input_ids.size(1), Tm = b.word.input_ids.size(1),
                T = Tx + 2 * Tm;
  torch::Tensor mask = torch::zeros({B, T, T}, torch::kLong);
  mask.slice(1, 0, Tx).slice(2, 0, Tx).copy_(b.context.mask);
  mask.slice(1, Tx, Tx + Tm).slice(2, 0, Tx + Tm).copy_(b.word.mask);
  mask.slice(1, Tx + Tm, T).slice(2, 0, Tx).copy_(b.span.mask.slice(2, 0, Tx));
  mask.slice(1, Tx + Tm, T).slice(2, Tx + Tm, T).copy_(b.span.mask.slice(2, Tx, Tx + Tm));
  auto cat = [&](auto field) {
    return torch::cat({field(b.context), field(b.word), field(b.span)}, 1);
  };
  BertOutput full = m->forward(cat([](const FlowInput& f) { return f.input_ids; }),
                               cat([](const FlowInput& f) { return f.token_type_ids; }), mask,
                               cat([](const FlowInput& f) { return f.position_ids; }));
  const auto& h = full.last_hidden_state;
  EXPECT_LT((h.slice(1, 0, Tx) - out.context).abs().max().item<double>(), 1e-4);
  EXPECT_LT((h.slice(1, Tx, Tx + Tm) - out.flows[0]).abs().max().item<double>(), 1e-4);
  EXPECT_LT((h.slice(1, Tx + Tm, T) - out.flows[1]).abs().max().item<double>(), 1e-4);
  // The contextual flow is the same with or without generation flows.
  MultiFlowOutput alone = multi_flow_forward(m, b.context, {});
  EXPECT_TRUE(torch::equal(alone.context, out.context));
}

TEST(ErnieGenForwardTest, FlowsNeverSeeForbiddenPositions) {
  UnilmModel m = random_model();
  const SpanVocab sv = pair_vocab();
  ErnieGenBatch b = batch_of(examples(), 0.5, 0.0, 1, &sv);
  torch::NoGradGuard g;
  MultiFlowOutput ref = multi_flow_forward(m, b.context, {b.word, b.span});
  // Perturb t3 (= 11, X position 7) of example 0: a1..a3 of the word flow and a1..a3 of the span
  // flow do not see it; a4 of both does.
  ErnieGenBatch p = b;
  p.context.input_ids = b.context.input_ids.clone();
  p.context.input_ids[0][7] = 30;
  MultiFlowOutput out = multi_flow_forward(m, p.context, {p.word, p.span});
  for (int f = 0; f < 2; ++f) {
    for (int64_t i = 0; i < 3; ++i)
      EXPECT_TRUE(torch::equal(out.flows[f][0][i], ref.flows[f][0][i]))
          << "flow " << f << " row " << i;
    EXPECT_FALSE(torch::allclose(out.flows[f][0][3], ref.flows[f][0][3])) << "flow " << f;
  }
  // The span flow's a2 (in t1's span) does not see t1 either; the word flow's a2 does.
  ErnieGenBatch q = b;
  q.context.input_ids = b.context.input_ids.clone();
  q.context.input_ids[0][5] = 30;
  MultiFlowOutput out2 = multi_flow_forward(m, q.context, {q.word, q.span});
  EXPECT_TRUE(torch::equal(out2.flows[1][0][1], ref.flows[1][0][1]));
  EXPECT_FALSE(torch::allclose(out2.flows[0][0][1], ref.flows[0][0][1]));
  // Other examples of the batch are untouched by either perturbation.
  EXPECT_TRUE(torch::equal(out2.flows[0][1], ref.flows[0][1]));
  // A symbol never sees the other symbols of its flow: changing a4's input changes only a4.
  ErnieGenBatch r = b;
  r.word.input_ids = b.word.input_ids.clone();
  r.word.input_ids[0][3] = 31;
  MultiFlowOutput out3 = multi_flow_forward(m, r.context, {r.word});
  for (int64_t i = 0; i < 3; ++i)
    EXPECT_TRUE(torch::equal(out3.flows[0][0][i], ref.flows[0][0][i]));
}

// Log-probabilities of the word flow for target `tgt` after `src` (teacher forcing, no noise).
torch::Tensor word_flow_log_probs(UnilmModel& m, const std::vector<int64_t>& src,
                                  const std::vector<int64_t>& tgt, bool bos = false) {
  ErnieGenBatch b = batch_of({{src, tgt}}, 1.0, 0.0, 1, nullptr, bos);
  MultiFlowOutput out = multi_flow_forward(m, b.context, {b.word});
  return torch::log_softmax(m->mlm_logits(out.flows[0][0]), -1);  // [m+1, V]
}

TEST(ErnieGenDecodingTest, InfillingStepsEqualTheTrainingWordFlow) {
  UnilmModel m = random_model();
  const auto ids = tiny_ids();
  torch::NoGradGuard g;
  const std::vector<int64_t> src = {13, 14, 15, 16, 17}, y = {20, 21, 22};
  for (bool bos : {false, true}) {
    const torch::Tensor ref = word_flow_log_probs(m, src, y, bos);
    Seq2SeqDataOptions types;
    types.target_bos = bos;
    for (bool cache : {true, false}) {
      UnilmStepScorer scorer(m, {src}, ids, types, cache, ids.attn);
      for (int step = 0; step <= 3; ++step) {
        // Built whole ({step, example, parent, last_token}): GCC 12 -O3 warns falsely (-Wnonnull,
        // memmove to null) on braced lists assigned into a fresh request's empty vectors.
        const StepRequest r =
            step > 0 ? StepRequest{step, {0}, {0}, {y[step - 1]}} : StepRequest{step, {0}, {}, {}};
        const torch::Tensor lp = scorer.step(r);
        EXPECT_LT((lp[0] - ref[step]).abs().max().item<double>(), 1e-4)
            << "step " << step << " cache " << cache << " bos " << bos;
      }
    }
  }
  // The [CLS]-opened layout is another model input: other distributions.
  EXPECT_GT((word_flow_log_probs(m, src, y, true) - word_flow_log_probs(m, src, y, false))
                .abs()
                .max()
                .item<double>(),
            1e-3);
  // [ATTN] and [MASK] are different queries: UniLM's decoding gives another distribution.
  const torch::Tensor ref = word_flow_log_probs(m, src, y);
  UnilmStepScorer unilm(m, {src}, ids, {}, true);
  const StepRequest r0{0, {0}, {}, {}};
  EXPECT_GT((unilm.step(r0)[0] - ref[0]).abs().max().item<double>(), 1e-3);
}

TEST(ErnieGenBatchTest, TargetOpenedByCls) {
  ErnieGenBatch b = batch_of(examples(), 1.0, 0.5, 3, nullptr, true);
  // X of example 0: [CLS] 6 7 8 [SEP] [CLS] t1..t4 [SEP]; the [ATTN]s at t1..[SEP] (6..10).
  EXPECT_EQ(vec(b.context.input_ids[0].slice(0, 0, 5)), (Ids{2, 6, 7, 8, 3}));
  EXPECT_EQ(b.context.input_ids[0][5].item<int64_t>(), 2);
  EXPECT_EQ(b.context.token_type_ids[0][5].item<int64_t>(), 1);
  EXPECT_EQ(vec(b.word.position_ids[0]), (Ids{6, 7, 8, 9, 10}));
  // a1 sees the source and the opening [CLS]; the source does not see that [CLS].
  EXPECT_EQ(b.word.mask[0][0].slice(0, 0, 7).sum().item<int64_t>(), 6);
  EXPECT_EQ(b.context.mask[0][0][5].item<int64_t>(), 0);
  EXPECT_EQ(b.context.mask[0][5][5].item<int64_t>(), 1);
  // Noise never hits the [CLS] or the closing [SEP]; the labels are the words and [SEP].
  EXPECT_EQ(b.noised[0][5].item<int64_t>(), 0);
  EXPECT_EQ(b.noised[0].sum().item<int64_t>(), 2);
  EXPECT_EQ(vec(b.labels).front(), 9);
}

TEST(ErnieGenDecodingTest, CachedEqualsRecomputedWithBeams) {
  UnilmModel m = random_model();
  const auto ids = tiny_ids();
  const std::vector<std::vector<int64_t>> src = {{6, 7, 8}, {9, 10, 11, 12, 13, 14}, {15}};
  for (int beam : {1, 4, -4}) {
    Seq2SeqDataOptions types;
    types.target_bos = beam < 0;  // the [CLS]-opened layout
    beam = std::abs(beam);
    SearchOptions o;
    o.beam = beam;
    o.max_len = 7;
    o.no_repeat_ngram = 2;
    o.min_len = 2;
    o.length_penalty = 0.6;
    UnilmStepScorer cached(m, src, ids, types, true, ids.attn);
    UnilmStepScorer recomputed(m, src, ids, types, false, ids.attn);
    auto a = generate(cached, {0, 1, 2}, ids.sep, o);
    auto b = generate(recomputed, {0, 1, 2}, ids.sep, o);
    for (size_t e = 0; e < a.size(); ++e) {
      EXPECT_EQ(a[e][0].tokens, b[e][0].tokens) << "beam " << beam;
      EXPECT_NEAR(a[e][0].score, b[e][0].score, 1e-4);
      EXPECT_GE(a[e][0].tokens.size() + (a[e][0].eos ? 1 : 0), 2u);
    }
  }
}

TEST(ErnieGenDecodingTest, WideBeamEqualsExhaustiveSearchOnATinyVocabulary) {
  constexpr int64_t V = 8;  // [PAD] [UNK] [CLS] [SEP] [MASK] [ATTN] and two words
  UnilmModel m = random_model(V);
  const auto ids = tiny_ids(V);
  const std::vector<int64_t> src = {6, 7, 6};
  const int max_len = 3;
  torch::NoGradGuard g;
  // Every finished sequence: ended by [SEP] before max_len, or max_len tokens long; its log-prob
  // from the training-time word flow over the whole sequence.
  double best = -1e300;
  std::vector<int64_t> best_tokens;
  std::function<void(std::vector<int64_t>)> walk = [&](std::vector<int64_t> prefix) {
    for (int64_t w = 0; w < V; ++w) {
      std::vector<int64_t> seq = prefix;
      seq.push_back(w);
      const bool done = w == ids.sep || static_cast<int>(seq.size()) == max_len;
      if (!done) {
        walk(seq);
        continue;
      }
      std::vector<int64_t> words(seq.begin(), seq.end() - (w == ids.sep ? 1 : 0));
      const torch::Tensor lp = word_flow_log_probs(m, src, words);
      double s = 0;
      for (size_t i = 0; i < seq.size(); ++i)
        s += lp[static_cast<int64_t>(i)][seq[i]].item<double>();
      if (s > best) best = s, best_tokens = words;
    }
  };
  walk({});
  SearchOptions o;
  o.beam = static_cast<int>(V * V * V);
  o.max_len = max_len;
  UnilmStepScorer scorer(m, {src}, ids, {}, true, ids.attn);
  auto nbest = generate(scorer, {0}, ids.sep, o);
  EXPECT_EQ(nbest[0][0].tokens, best_tokens);
  EXPECT_NEAR(nbest[0][0].log_prob, best, 1e-4);
}

TEST(ErnieGenLossTest, WordAndSpanFlowsWeightedByLambda) {
  UnilmModel m = random_model();
  const SpanVocab sv = pair_vocab();
  ErnieGenBatch b = batch_of(examples(), 0.25, 0.0, 1, &sv);
  torch::NoGradGuard g;
  const ErnieGenLoss mixed = ernie_gen_loss(m, b, 0.25, 0.0);
  EXPECT_GT(mixed.span_nll, 0.0);
  EXPECT_NEAR(mixed.loss.item<double>(), 0.25 * mixed.word_nll + 0.75 * mixed.span_nll, 1e-4);
  const ErnieGenLoss word = ernie_gen_loss(m, b, 1.0, 0.0);
  EXPECT_NEAR(word.loss.item<double>(), mixed.word_nll, 1e-5);
  EXPECT_EQ(word.span_nll, 0.0);
}

// --smoothing unilm with ERNIE-GEN: the word flow's loss is UniLM's KL of the same logits, so the
// two forms differ by the same amount as label_smoothed_nll's forms on the word-flow logits; with
// eps 0 both are the plain NLL.
TEST(ErnieGenLossTest, SmoothingFormReachesEachFlow) {
  UnilmModel m = random_model();
  ErnieGenBatch b = batch_of(examples(), 1.0, 0.0, 1, nullptr);
  torch::NoGradGuard g;
  const ErnieGenLoss uniform = ernie_gen_loss(m, b, 1.0, 0.1, LabelSmoothing::kUniform);
  const ErnieGenLoss kl = ernie_gen_loss(m, b, 1.0, 0.1, LabelSmoothing::kUnilm);
  EXPECT_NEAR(uniform.word_nll, kl.word_nll, 1e-6);                      // the same logits
  EXPECT_GT(uniform.loss.item<double>() - kl.loss.item<double>(), 0.1);  // about H(q)
  EXPECT_NEAR(ernie_gen_loss(m, b, 1.0, 0.0, LabelSmoothing::kUnilm).loss.item<double>(),
              uniform.word_nll, 1e-5);
}

TEST(SpanVocabTest, TStatisticAndGreedySpans) {
  // t = (P(w) - P(w1)P(w2)) / sqrt(P(w)(1 - P(w)) / N) by hand.
  EXPECT_NEAR(t_statistic(4, 100, {0.1, 0.2}), (0.04 - 0.02) / std::sqrt(0.04 * 0.96 / 100), 1e-12);
  EXPECT_EQ(t_statistic(0, 100, {0.1}), 0.0);
  // "new york city" recurs: (1 2 3) 40 times, every other trigram 20 times; (1 2) and (2 3) tie
  // on t (40 each) and the tie goes to the smaller ids.
  std::vector<std::vector<int64_t>> corpus;
  for (int i = 0; i < 20; ++i) {
    corpus.push_back({1, 2, 3, 4});
    corpus.push_back({5, 6, 7, 8});
    corpus.push_back({1, 2, 3, 9});
  }
  const SpanVocab v = SpanVocab::build(corpus, 1, 1);
  EXPECT_EQ(v.bigrams(), 1u);
  EXPECT_EQ(v.trigrams(), 1u);
  EXPECT_TRUE(v.has_bigram(1, 2));
  EXPECT_FALSE(v.has_bigram(2, 3));
  EXPECT_TRUE(v.has_trigram(1, 2, 3));
  EXPECT_FALSE(v.has_trigram(5, 6, 7));
  EXPECT_TRUE(SpanVocab::build(corpus, 3, 2).has_trigram(5, 6, 7));
  // Trigram first, then bigram, then unigram.
  EXPECT_EQ(v.span_starts({1, 2, 3, 1, 2, 9, 9}), (std::vector<int64_t>{0, 3, 5, 6}));
  EXPECT_EQ(v.span_starts({}), std::vector<int64_t>{});
  const SpanVocab none = SpanVocab::build(corpus, 0, 0);
  EXPECT_EQ(none.span_starts({1, 2, 3}), (std::vector<int64_t>{0, 1, 2}));
}

TEST(FragmentsTest, BudgetOrderAndSeed) {
  std::vector<int64_t> text(200);
  for (int64_t i = 0; i < 200; ++i) text[i] = 1000 + i;
  std::mt19937_64 rng(11);
  const Seq2SeqExample ex = sample_fragments(text, 0.25, rng);
  EXPECT_EQ(ex.tgt.size(), 50u);
  EXPECT_EQ(ex.src.size() + ex.tgt.size(), 200u);
  EXPECT_TRUE(std::is_sorted(ex.src.begin(), ex.src.end()));
  EXPECT_TRUE(std::is_sorted(ex.tgt.begin(), ex.tgt.end()));  // fragments in text order
  std::vector<int64_t> all = ex.src;
  all.insert(all.end(), ex.tgt.begin(), ex.tgt.end());
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, text);
  std::mt19937_64 again(11);
  EXPECT_EQ(sample_fragments(text, 0.25, again).tgt, ex.tgt);
  // A text of one token keeps it as the source.
  std::mt19937_64 r1(1);
  EXPECT_TRUE(sample_fragments({5}, 0.25, r1).tgt.empty());
}

}  // namespace
}  // namespace unieval::models::ernie_gen_test
