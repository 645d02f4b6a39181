// The copy (pointer) head (models/nn/copy_head.h): the mixture is a distribution, its two limits
// are the vocabulary softmax and the attention scattered onto the source ids, a model without it
// is unchanged, decoding gives the training distribution (cached and uncached, UniLM and
// ERNIE-GEN), and on a task whose answers are source words unseen in training it learns what the
// vocabulary softmax alone does not.
#include "models/nn/copy_head.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <string>

#include "core/error.h"
#include "models/decoding/search.h"
#include "models/decoding/search_unilm.h"
#include "models/nn/transformer.h"
#include "models/training/ernie_gen.h"
#include "models/training/trainer.h"
#include "tests/models/tiny_ids.h"

namespace unieval::models {
namespace {

constexpr int64_t kCopyVocab = 40;

UnilmModel copy_model(bool copy, uint64_t seed = 3, double scale = 10.0) {
  torch::manual_seed(seed);
  BertConfig cfg = BertConfig::tiny(kCopyVocab, 0.0);
  cfg.copy = copy;
  UnilmHeads heads;
  heads.pooler = false;
  UnilmModel m(cfg, heads);
  torch::NoGradGuard g;
  // Larger weights than the init's 0.02 so that distributions are far from uniform.
  for (auto& p : m->parameters())
    if (p.dim() == 2) p.mul_(scale);
  m->eval();
  return m;
}

// CopyPacked rows "[CLS] S [SEP] [MASK]" of the given sources (right-padded), their |S| and mask.
struct CopyPacked {
  torch::Tensor ids, types, mask;
  std::vector<int64_t> source_len;
};

CopyPacked pack_copy_rows(const std::vector<std::vector<int64_t>>& sources) {
  const auto sp = testing::tiny_special_ids(kCopyVocab);
  const int64_t B = static_cast<int64_t>(sources.size());
  int64_t T = 0;
  for (const auto& s : sources) T = std::max<int64_t>(T, static_cast<int64_t>(s.size()) + 3);
  CopyPacked p;
  p.ids = torch::full({B, T}, sp.pad, torch::kInt64);
  p.types = torch::zeros({B, T}, torch::kInt64);
  p.mask = torch::zeros({B, T, T}, torch::kInt64);
  for (int64_t b = 0; b < B; ++b) {
    const int64_t n = static_cast<int64_t>(sources[b].size());
    p.ids[b][0] = sp.cls;
    for (int64_t j = 0; j < n; ++j) p.ids[b][j + 1] = sources[b][j];
    p.ids[b][n + 1] = sp.sep;
    p.ids[b][n + 2] = sp.mask;
    p.types[b][n + 2] = 1;
    for (int64_t i = 0; i < T; ++i)
      for (int64_t j = 0; j < T; ++j)
        if ((i < n + 2 && j < n + 2) || (i == n + 2 && j <= n + 2) || (i >= n + 3 && i == j))
          p.mask[b][i][j] = 1;
    p.source_len.push_back(n);
  }
  return p;
}

// Next-token log-probabilities at each row's [MASK].
torch::Tensor copy_at_mask(UnilmModel& m, const CopyPacked& p) {
  BertOutput out = m->forward(p.ids, p.types, p.mask);
  const int64_t T = p.ids.size(1);
  std::vector<int64_t> at;
  for (size_t b = 0; b < p.source_len.size(); ++b)
    at.push_back(static_cast<int64_t>(b) * T + p.source_len[b] + 2);
  const CopySource src = packed_copy_source(out.last_hidden_state, p.ids, p.source_len);
  return m->next_token_log_probs(out.last_hidden_state, torch::tensor(at), &src);
}

const std::vector<std::vector<int64_t>> kCopySources = {
    {7, 8, 7, 9}, {10}, {11, 12, 13, 14, 15, 16}};

TEST(CopyHeadTest, MixtureIsADistributionBetweenItsTwoLimits) {
  torch::NoGradGuard g;
  UnilmModel m = copy_model(true);
  const CopyPacked p = pack_copy_rows(kCopySources);
  const torch::Tensor lp = copy_at_mask(m, p);
  ASSERT_EQ(lp.sizes(), (torch::IntArrayRef{3, kCopyVocab}));
  EXPECT_LT((lp.exp().sum(1) - 1.0).abs().max().item<double>(), 1e-5);

  // Gate closed (g = σ(-60) ≈ 0): all mass on the source's words, repeats summed, none on the
  // specials; equal to the attention scattered onto the ids.
  m->copy->gate->bias.fill_(-60.0);
  const torch::Tensor copy = copy_at_mask(m, p).exp();
  for (size_t b = 0; b < kCopySources.size(); ++b) {
    double on_source = 0.0;
    std::set<int64_t> words(kCopySources[b].begin(), kCopySources[b].end());
    for (int64_t w : words) on_source += copy[b][w].item<double>();
    EXPECT_NEAR(on_source, 1.0, 1e-5) << "row " << b;
    for (int64_t special : {0, 2, 3, 4}) EXPECT_LT(copy[b][special].item<double>(), 1e-12);
  }
  BertOutput out = m->forward(p.ids, p.types, p.mask);
  const CopySource src = packed_copy_source(out.last_hidden_state, p.ids, p.source_len);
  auto [attn, z] = m->copy->forward(out.last_hidden_state, src);
  // Row 0: word 7 at source positions 1 and 3, read at the [MASK] (position 6).
  const double seven = attn[0][6][1].item<double>() + attn[0][6][3].item<double>();
  EXPECT_NEAR(copy[0][7].item<double>(), seven, 1e-5);
  EXPECT_GT(seven, 0.0);
  EXPECT_EQ(attn[0][6][0].item<double>(), 0.0);  // [CLS] is not copyable
  EXPECT_EQ(attn[1][3][2].item<double>(), 0.0);  // nor another row's padding

  // Gate open (g ≈ 1): the vocabulary softmax.
  m->copy->gate->bias.fill_(60.0);
  const torch::Tensor vocab = copy_at_mask(m, p);
  const int64_t T = p.ids.size(1);
  std::vector<int64_t> at = {6, T + 3, 2 * T + 8};
  const torch::Tensor ref = torch::log_softmax(
      m->mlm_logits(out.last_hidden_state.reshape({-1, 32}).index_select(0, torch::tensor(at))),
      -1);
  EXPECT_LT((vocab - ref).abs().max().item<double>(), 1e-4);
}

TEST(CopyHeadTest, PrecomputedKeysGiveTheSameAttentionAndGate) {
  // A decoder projects each source's keys once (with_keys) and selects rows per beam; the result
  // must be the per-call projection's, for the rows in any order and repeated.
  torch::NoGradGuard g;
  UnilmModel m = copy_model(true);
  const CopyPacked p = pack_copy_rows(kCopySources);
  BertOutput out = m->forward(p.ids, p.types, p.mask);
  const CopySource plain = packed_copy_source(out.last_hidden_state, p.ids, p.source_len);
  const CopySource keyed = m->copy->with_keys(plain);
  ASSERT_TRUE(keyed.keys.defined());
  EXPECT_FALSE(plain.keys.defined());
  EXPECT_EQ(keyed.keys.sizes(), plain.hidden.sizes());
  const torch::Tensor rows = torch::tensor({2, 0, 2, 1}, torch::kInt64);
  const torch::Tensor q = out.last_hidden_state.index_select(0, rows);
  auto [a_ref, z_ref] = m->copy->forward(q, plain.select(rows));
  auto [a, z] = m->copy->forward(q, keyed.select(rows));
  EXPECT_LT((a - a_ref).abs().max().item<double>(), 1e-6);
  EXPECT_LT((z - z_ref).abs().max().item<double>(), 1e-5);
  // Changing the key weights after with_keys does not reach the stored keys: they are data.
  m->copy->key->weight.mul_(0.0);
  auto [a_stale, z_stale] = m->copy->forward(q, keyed.select(rows));
  EXPECT_LT((a_stale - a_ref).abs().max().item<double>(), 1e-6);
  auto [a_new, z_new] = m->copy->forward(q, plain.select(rows));
  EXPECT_GT((a_new - a_ref).abs().max().item<double>(), 1e-3);
}

TEST(CopyHeadTest, WithoutTheConfigKeyTheModelIsUnchanged) {
  UnilmModel plain = copy_model(false, 5, 1.0), with = copy_model(true, 5, 1.0);
  EXPECT_FALSE(plain->copy);
  ASSERT_TRUE(with->copy);
  // The copy head is registered last: every other weight is drawn as before.
  auto a = plain->named_parameters(), b = with->named_parameters();
  EXPECT_EQ(b.size(), a.size() + 6);
  for (const auto& item : a) EXPECT_TRUE(torch::equal(item.value(), b[item.key()])) << item.key();
  EXPECT_TRUE(b.contains("copy.query.weight") && b.contains("copy.gate.bias"));
  // And its next-token distribution is log_softmax(mlm_logits), no source needed.
  torch::NoGradGuard g;
  const torch::Tensor h = torch::randn({2, 3, 32});
  EXPECT_TRUE(torch::allclose(plain->next_token_log_probs(h, {}, nullptr),
                              torch::log_softmax(plain->mlm_logits(h.reshape({6, 32})), -1)));
  EXPECT_THROW(with->next_token_log_probs(h, {}, nullptr), InputError);
}

TEST(CopyHeadTest, ConfigKeyRoundTripsAndIsChecked) {
  BertConfig c = BertConfig::from_json(nlohmann::json{{"unieval_copy", true}}, "cfg.json");
  EXPECT_TRUE(c.copy);
  EXPECT_TRUE(c.unknown_fields.empty());
  EXPECT_EQ(c.to_json().at("unieval_copy"), true);
  EXPECT_FALSE(BertConfig().to_json().contains("unieval_copy"));  // HF's form when off
  EXPECT_TRUE(BertConfig::from_json(c.to_json()).copy);
  try {
    BertConfig::from_json(nlohmann::json{{"unieval_copy", "yes"}}, "cfg.json");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("cfg.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("unieval_copy"), std::string::npos) << e.what();
  }
}

TEST(CopyHeadTest, DecodingStepsEqualTheTrainingDistribution) {
  UnilmModel m = copy_model(true);
  const auto ids = testing::tiny_special_ids(kCopyVocab);
  torch::NoGradGuard g;
  // Step 0 of both decoders against the packed forward the trainer scores.
  const torch::Tensor ref = copy_at_mask(m, pack_copy_rows(kCopySources));
  for (bool cache : {true, false}) {
    UnilmStepScorer scorer(m, kCopySources, ids, {}, cache);
    const StepRequest r0{0, {0, 1, 2}, {}, {}};
    EXPECT_LT((scorer.step(r0) - ref).abs().max().item<double>(), 1e-4) << "cache " << cache;
  }
  // Later steps with beams reordered: cached equals uncached, for UniLM and ERNIE-GEN queries.
  for (int64_t query : {int64_t{-1}, testing::tiny_special_ids(kCopyVocab, true).attn}) {
    UnilmStepScorer cached(m, kCopySources, ids, {}, true, query);
    UnilmStepScorer uncached(m, kCopySources, ids, {}, false, query);
    const StepRequest r0{0, {0, 1, 2}, {}, {}};
    const StepRequest r1{1, {2, 2, 0}, {2, 2, 0}, {11, 16, 9}};
    const StepRequest r2{2, {0, 2}, {2, 0}, {8, 12}};
    for (const StepRequest* r : {&r0, &r1, &r2})
      EXPECT_LT((cached.step(*r) - uncached.step(*r)).abs().max().item<double>(), 1e-4)
          << "step " << r->step;
  }
  // Whole searches agree too.
  SearchOptions o;
  o.beam = 3;
  o.max_len = 6;
  UnilmStepScorer cached(m, kCopySources, ids, {}, true), uncached(m, kCopySources, ids, {}, false);
  auto a = generate(cached, {0, 1, 2}, ids.sep, o), b = generate(uncached, {0, 1, 2}, ids.sep, o);
  for (size_t e = 0; e < a.size(); ++e) {
    EXPECT_EQ(a[e][0].tokens, b[e][0].tokens) << "example " << e;
    EXPECT_NEAR(a[e][0].score, b[e][0].score, 1e-4) << "example " << e;
  }
}

TEST(CopyHeadTest, ErnieGenWordFlowUsesTheCopyAndItsDecodingAgrees) {
  UnilmModel m = copy_model(true);
  const auto ids = testing::tiny_special_ids(kCopyVocab, /*with_attn=*/true);
  const std::vector<int64_t> src = {13, 14, 15, 16, 17}, y = {15, 21, 17};
  std::mt19937_64 rng(1);
  ErnieGenOptions eg;
  eg.noise_prob = 0.0;
  const std::vector<Seq2SeqExample> ex = {{src, y}};
  ErnieGenBatch b = make_ernie_gen_batch(ex, {0}, {}, eg, ids, nullptr, rng, nullptr);
  EXPECT_EQ(b.source_len, (std::vector<int64_t>{5}));
  // The loss is the copy mixture's NLL: it changes with the gate, and the head gets gradients.
  m->train();
  const ErnieGenLossTensors open = ernie_gen_loss_tensors(m, b, 1.0, 0.0);
  open.loss.backward();
  EXPECT_GT(m->copy->query->weight.grad().abs().sum().item<double>(), 0.0);
  EXPECT_GT(m->copy->gate->weight.grad().abs().sum().item<double>(), 0.0);
  m->eval();
  torch::NoGradGuard g;
  // Teacher-forced word flow at each step equals the infilling decoder's step (cached).
  MultiFlowOutput out = multi_flow_forward(m, b.context, {b.word});
  const CopySource cs = packed_copy_source(out.context, b.context.input_ids, b.source_len);
  const torch::Tensor ref = m->next_token_log_probs(out.flows[0], {}, &cs);  // [4, V]
  const double nll = -(ref[0][15] + ref[1][21] + ref[2][17] + ref[3][ids.sep]).item<double>() / 4;
  EXPECT_NEAR(ernie_gen_loss_tensors(m, b, 1.0, 0.0).word_nll.item<double>(), nll, 1e-4);
  for (bool cache : {true, false}) {
    UnilmStepScorer scorer(m, {src}, ids, {}, cache, ids.attn);
    for (int step = 0; step <= 3; ++step) {
      const StepRequest r =
          step > 0 ? StepRequest{step, {0}, {0}, {y[step - 1]}} : StepRequest{step, {0}, {}, {}};
      EXPECT_LT((scorer.step(r)[0] - ref[step]).abs().max().item<double>(), 1e-4)
          << "step " << step << " cache " << cache;
    }
  }
}

// A task whose targets are source words: the 2nd, 4th and 5th of 6 tokens drawn from 250 ids.
// Most dev words never occur in a training target, so only pointing at them can produce them.
std::vector<Seq2SeqExample> copy_pick_task(int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> word(5, 254);
  std::vector<Seq2SeqExample> v;
  for (int i = 0; i < n; ++i) {
    Seq2SeqExample e;
    for (int j = 0; j < 6; ++j) e.src.push_back(word(rng));
    e.tgt = {e.src[1], e.src[3], e.src[4]};
    v.push_back(e);
  }
  return v;
}

TEST(CopyHeadTest, LearnsToCopyWordsTheVocabularyDistributionHasNotLearnt) {
  const auto train = copy_pick_task(64, 1), dev = copy_pick_task(32, 2);
  const SpecialIds ids = testing::tiny_special_ids(255);
  for (const std::string arch : {"unilm", "ernie-gen"}) {
    std::map<bool, double> loss;
    for (bool copy : {false, true}) {
      torch::manual_seed(7);
      BertConfig cfg = BertConfig::tiny(255, 0.0);
      cfg.copy = copy;
      UnilmHeads heads;
      heads.pooler = false;
      UnilmModel m(cfg, heads);
      TrainOptions o;
      o.arch = arch;
      o.ernie.noise_prob = 0.0;
      o.optim.lr = 3e-3;
      o.epochs = 40;
      o.batch_tokens = 16 * 12;
      o.batch_size = 16;
      o.progress = false;
      o.data.mask_prob = 1.0;
      train_seq2seq(m, train, ids, o, nullptr, false);
      loss[copy] = dev_loss(m, dev, ids, o.data, 1024, 1, arch);
    }
    // Without the copy the dev words are guesses among ~250 (log 250 = 5.5); with it the model
    // points at the three positions.
    EXPECT_GT(loss[false], 3.0) << arch;
    EXPECT_LT(loss[true], 0.5 * loss[false]) << arch;
    EXPECT_LT(loss[true], 1.0) << arch;
  }
}

}  // namespace
}  // namespace unieval::models
