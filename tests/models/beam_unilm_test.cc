// UniLM incremental decoding: cached and uncached decoding give the same tokens and scores, and
// an example's result does not depend on the batch it is decoded in.
#include <gtest/gtest.h>

#include "models/decoding/search.h"
#include "models/decoding/search_unilm.h"
#include "tests/models/beam_search_reference.h"
#include "tests/models/tiny_ids.h"

namespace unieval::models {
namespace {

constexpr int64_t kVocab = 40;

SpecialIds tiny_ids() { return testing::tiny_special_ids(kVocab); }

UnilmModel random_model() {
  torch::manual_seed(3);
  BertConfig cfg = BertConfig::tiny(kVocab, 0.0);
  UnilmHeads heads;
  heads.pooler = false;
  UnilmModel m(cfg, heads);
  m->init_weights();
  // Larger weights than the init's 0.02 so that distributions are far from uniform.
  torch::NoGradGuard g;
  for (auto& p : m->parameters())
    if (p.dim() == 2) p.mul_(10.0);
  m->eval();
  return m;
}

std::vector<std::vector<int64_t>> sources() {
  return {{5, 6, 7}, {8, 9, 10, 11, 12, 13, 14}, {15}, {20, 21, 22, 23, 24}, {30, 31}};
}

TEST(UnilmDecodingTest, CachedEqualsUncached) {
  UnilmModel m = random_model();
  const auto ids = tiny_ids();
  Seq2SeqDataOptions types;
  for (int beam : {1, 3}) {
    SearchOptions o;
    o.beam = beam;
    o.max_len = 8;
    o.no_repeat_ngram = 2;
    o.length_penalty = 0.5;
    UnilmStepScorer cached(m, sources(), ids, types, true);
    UnilmStepScorer uncached(m, sources(), ids, types, false);
    std::vector<int64_t> ex = {0, 1, 2, 3, 4};
    auto a = generate(cached, ex, ids.sep, o);
    auto b = generate(uncached, ex, ids.sep, o);
    ASSERT_EQ(a.size(), b.size());
    for (size_t e = 0; e < a.size(); ++e) {
      ASSERT_FALSE(a[e].empty());
      EXPECT_EQ(a[e][0].tokens, b[e][0].tokens) << "beam " << beam << " example " << e;
      EXPECT_NEAR(a[e][0].score, b[e][0].score, 1e-4) << "beam " << beam << " example " << e;
    }
  }
}

TEST(UnilmDecodingTest, StepLogProbsMatchFullForward) {
  // One step of each path directly: the distributions agree to float tolerance.
  UnilmModel m = random_model();
  const auto ids = tiny_ids();
  UnilmStepScorer cached(m, sources(), ids, {}, true);
  UnilmStepScorer uncached(m, sources(), ids, {}, false);
  // Requests built whole ({step, example, parent, last_token}): GCC 12 -O3 warns falsely
  // (-Wnonnull, memmove to null) on braced lists assigned into a fresh request's empty vectors.
  const StepRequest r0{0, {0, 1, 2, 3, 4}, {}, {}};
  auto a0 = cached.step(r0), b0 = uncached.step(r0);
  EXPECT_LT((a0 - b0).abs().max().item<double>(), 1e-4);
  const StepRequest r1{1, {1, 1, 3, 4}, {1, 1, 3, 4}, {7, 9, 11, 13}};
  auto a1 = cached.step(r1), b1 = uncached.step(r1);
  EXPECT_LT((a1 - b1).abs().max().item<double>(), 1e-4);
  const StepRequest r2{2, {1, 4, 4}, {0, 3, 3}, {5, 6, 8}};
  auto a2 = cached.step(r2), b2 = uncached.step(r2);
  EXPECT_LT((a2 - b2).abs().max().item<double>(), 1e-4);
}

TEST(UnilmDecodingTest, BatchSizeInvariance) {
  UnilmModel m = random_model();
  const auto ids = tiny_ids();
  SearchOptions o;
  o.beam = 4;
  o.max_len = 8;
  o.no_repeat_ngram = 3;
  auto src = sources();
  UnilmStepScorer all(m, src, ids, {}, true);
  auto batched = generate(all, {0, 1, 2, 3, 4}, ids.sep, o);
  for (size_t e = 0; e < src.size(); ++e) {
    UnilmStepScorer one(m, {src[e]}, ids, {}, true);
    auto single = generate(one, {static_cast<int64_t>(e)}, ids.sep, o);
    EXPECT_EQ(single[0][0].tokens, batched[e][0].tokens) << "example " << e;
    EXPECT_NEAR(single[0][0].score, batched[e][0].score, 1e-4) << "example " << e;
  }
}

// The model's distributions rounded to 0.5 nats: many exact ties, also at the top-k cuts.
class RoundedScorer : public StepScorer {
 public:
  explicit RoundedScorer(StepScorer& inner) : inner_(inner) {}
  torch::Tensor step(const StepRequest& req) override {
    return torch::round(inner_.step(req) * 2) / 2;
  }

 private:
  StepScorer& inner_;
};

// A fixed seeded model decoded by the tensor beam search (top-k on the device, preallocated KV
// cache reordered in place) gives byte for byte the hypotheses of the host float64 reference
// search on the same scorer, for several beams and lengths, with and without ties (equal scores
// go by row, then token id, as models/decoding/search.h documents).
TEST(UnilmDecodingTest, TensorSearchOnTheModelEqualsReference) {
  UnilmModel m = random_model();
  const auto ids = tiny_ids();
  int compared = 0;
  for (bool tied : {false, true}) {
    for (int beam : {2, 5, 8}) {
      for (int len : {3, 9, 40}) {
        SearchOptions o;
        o.beam = beam;
        o.n_best = beam;
        o.max_len = len;
        o.min_len =
            len == 40 ? 20 : 0;  // forces long outputs: the cache outgrows nothing, reorders a lot
        o.no_repeat_ngram = len == 9 ? 2 : 0;
        o.length_penalty = len == 3 ? 0.0 : 0.8;
        UnilmStepScorer sa(m, sources(), ids, {}, true), sb(m, sources(), ids, {}, true);
        RoundedScorer ra(sa), rb(sb);
        StepScorer& a = tied ? static_cast<StepScorer&>(ra) : sa;
        StepScorer& b = tied ? static_cast<StepScorer&>(rb) : sb;
        auto got = beam_search(a, 5, ids.sep, o);
        auto want = beam_search_reference(b, 5, ids.sep, o);
        ASSERT_EQ(got.size(), want.size());
        for (size_t e = 0; e < got.size(); ++e) {
          ASSERT_EQ(got[e].size(), want[e].size())
              << "beam " << beam << " len " << len << " tied " << tied;
          for (size_t i = 0; i < got[e].size(); ++i) {
            EXPECT_EQ(got[e][i].tokens, want[e][i].tokens)
                << "beam " << beam << " len " << len << " tied " << tied;
            EXPECT_EQ(got[e][i].log_prob, want[e][i].log_prob);
            EXPECT_EQ(got[e][i].score, want[e][i].score);
            EXPECT_EQ(got[e][i].eos, want[e][i].eos);
            ++compared;
          }
        }
      }
    }
  }
  EXPECT_GT(compared, 100);
}

}  // namespace
}  // namespace unieval::models
