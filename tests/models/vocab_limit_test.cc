// The vocabulary against the embedding table (models/decoding/vocab_limit.h): VocabLimitScorer masks the
// ids past a smaller vocabulary, check_vocab_fits refuses a larger one naming both files.
#include "models/decoding/vocab_limit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/error.h"

namespace unieval::models {
namespace {

// Returns the same [2, 6] log-probabilities at every step.
class FixedScorer : public StepScorer {
 public:
  torch::Tensor step(const StepRequest&) override { return lp; }
  torch::Tensor lp = torch::log_softmax(torch::arange(12, torch::kFloat).view({2, 6}), -1);
};

TEST(VocabLimitTest, ScorerMasksOnlyTheIdsPastTheVocabulary) {
  FixedScorer inner;
  const torch::Tensor before = inner.lp.clone();
  VocabLimitScorer scorer(inner, 4);
  const torch::Tensor out = scorer.step(StepRequest{});
  ASSERT_EQ(out.sizes(), before.sizes());
  EXPECT_TRUE(torch::equal(out.narrow(1, 0, 4), before.narrow(1, 0, 4)));  // not renormalised
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t id = 4; id < 6; ++id)
      EXPECT_TRUE(std::isinf(out[r][id].item<float>()) && out[r][id].item<float>() < 0);
  EXPECT_TRUE(torch::equal(inner.lp, before)) << "the inner scorer's tensor was written to";
  // As many entries as ids, or more: nothing to mask.
  VocabLimitScorer all(inner, 6);
  EXPECT_TRUE(torch::equal(all.step(StepRequest{}), before));
  EXPECT_THROW(VocabLimitScorer(inner, 0), std::invalid_argument);
}

TEST(VocabLimitTest, BannedIdsNeverComeOutOfAGreedySearch) {
  FixedScorer inner;  // id 5 is the most likely at every step, then 4, 3, ...
  const torch::Tensor before = inner.lp.clone();
  VocabLimitScorer scorer(inner, 6, {5, 1});
  const torch::Tensor out = scorer.step(StepRequest{});
  for (int64_t r = 0; r < 2; ++r) {
    for (int64_t id : {1, 5})
      EXPECT_TRUE(std::isinf(out[r][id].item<float>()) && out[r][id].item<float>() < 0);
    for (int64_t id : {0, 2, 3, 4})
      EXPECT_EQ(out[r][id].item<float>(), before[r][id].item<float>());
  }
  EXPECT_TRUE(torch::equal(inner.lp, before)) << "the inner scorer's tensor was written to";
  // Through a search: greedy now picks 4, never the banned 5 (eos 0 never wins: max_len ends it).
  SearchOptions o;
  o.max_len = 3;
  const auto nbest = generate(scorer, {0, 1}, /*eos=*/0, o);
  ASSERT_EQ(nbest.size(), 2u);
  EXPECT_EQ(nbest[0][0].tokens, (std::vector<int64_t>{4, 4, 4}));
  EXPECT_THROW(VocabLimitScorer(inner, 6, {6}), std::invalid_argument);
}

TEST(VocabLimitTest, CheckVocabFitsRefusesOnlyAVocabularyPastTheTable) {
  EXPECT_NO_THROW(check_vocab_fits(30522, "ckpt/vocab.txt", 30522, "ckpt/config.json"));
  EXPECT_NO_THROW(
      check_vocab_fits(30522, "ckpt/vocab.txt", 30528, "ckpt/config.json"));  // padded to 8
  try {
    check_vocab_fits(30524, "ckpt/vocab.txt", 30522, "ckpt/config.json");
    ADD_FAILURE() << "a vocabulary past vocab_size was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "ckpt/vocab.txt");
    EXPECT_EQ(e.line(), 0);
    const std::string what = e.what();
    EXPECT_EQ(
        what.rfind(
            "ckpt/vocab.txt: has 30524 entries, more than the vocab_size 30522 of ckpt/config.json",
            0),
        0u)
        << what;
    EXPECT_NE(what.find("ids 30522..30523"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace unieval::models
