// Beam search, greedy and sampling over toy scorers: beam search with a wide beam equals
// exhaustive search; n-gram blocking, min/max length, batch independence.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>

#include "models/search.h"

namespace unieval::models {
namespace {

// A deterministic "model": log-probs of the next token are a seeded random function of
// (example, prefix). Tracks prefixes through the parent/last_token protocol, exactly as a cached
// model would, so it also checks the search's bookkeeping.
class ToyScorer : public StepScorer {
 public:
  ToyScorer(int64_t vocab, uint64_t seed, std::vector<int64_t> example_keys)
      : vocab_(vocab), seed_(seed), keys_(std::move(example_keys)) {}
  torch::Tensor step(const StepRequest& req) override {
    std::vector<std::vector<int64_t>> prefix(req.example.size());
    for (size_t r = 0; r < req.example.size(); ++r) {
      if (req.step > 0) {
        prefix[r] = prefixes_.at(req.parent[r]);
        prefix[r].push_back(req.last_token[r]);
      }
      EXPECT_EQ(static_cast<int>(prefix[r].size()), req.step);
    }
    prefixes_ = prefix;
    torch::Tensor out = torch::empty({static_cast<int64_t>(prefix.size()), vocab_}, torch::kDouble);
    for (size_t r = 0; r < prefix.size(); ++r) out[r] = log_probs(keys_[req.example[r]], prefix[r]);
    ++calls;
    return out;
  }
  torch::Tensor log_probs(int64_t key, const std::vector<int64_t>& prefix) const {
    uint64_t h = seed_ * 1000003 + key;
    for (int64_t t : prefix) h = h * 31 + t + 7;
    auto gen = at::detail::createCPUGenerator(h);
    torch::Tensor logits = torch::randn({vocab_}, gen, torch::TensorOptions().dtype(torch::kDouble)) * 2.0;
    return torch::log_softmax(logits, 0);
  }
  int calls = 0;

 private:
  int64_t vocab_;
  uint64_t seed_;
  std::vector<int64_t> keys_;
  std::vector<std::vector<int64_t>> prefixes_;
};

// Every sequence the search may produce, scored the same way (constraints applied).
std::vector<Hypothesis> exhaustive(const ToyScorer& s, int64_t key, int64_t vocab, int64_t eos,
                                   const SearchOptions& o) {
  std::vector<Hypothesis> all;
  std::function<void(std::vector<int64_t>&, double)> rec = [&](std::vector<int64_t>& prefix, double lp) {
    torch::Tensor p = s.log_probs(key, prefix);
    auto banned = banned_by_ngram(prefix, o.no_repeat_ngram);
    for (int64_t w = 0; w < vocab; ++w) {
      if (w == eos && static_cast<int>(prefix.size()) < o.min_len) continue;
      if (o.no_repeat_ngram > 0 && std::find(banned.begin(), banned.end(), w) != banned.end()) continue;
      const double l = lp + p[w].item<double>();
      const int64_t len = static_cast<int64_t>(prefix.size()) + 1;
      if (w == eos || len == o.max_len) {
        Hypothesis h;
        h.tokens = prefix;
        if (w != eos) h.tokens.push_back(w);
        h.log_prob = l;
        h.score = length_normalised(l, len, o.length_penalty);
        h.eos = w == eos;
        all.push_back(h);
        continue;
      }
      prefix.push_back(w);
      rec(prefix, l);
      prefix.pop_back();
    }
  };
  std::vector<int64_t> prefix;
  rec(prefix, 0.0);
  std::stable_sort(all.begin(), all.end(), [](const Hypothesis& a, const Hypothesis& b) { return a.score > b.score; });
  return all;
}

struct Case {
  double alpha;
  int min_len;
  int ngram;
};

TEST(BeamSearchTest, WideBeamEqualsExhaustiveSearch) {
  const int64_t V = 4, eos = 0;
  for (const Case& c : {Case{0.0, 0, 0}, Case{1.0, 0, 0}, Case{0.6, 2, 0}, Case{0.0, 1, 2}, Case{2.0, 0, 2}}) {
    SearchOptions o;
    o.max_len = 5;
    o.length_penalty = c.alpha;
    o.min_len = c.min_len;
    o.no_repeat_ngram = c.ngram;
    o.beam = 4 * 4 * 4 * 4 * 4;  // ≥ every live prefix
    o.n_best = 5;
    ToyScorer scorer(V, 11, {3, 8, 21});
    auto got = beam_search(scorer, 3, eos, o);
    ASSERT_EQ(got.size(), 3u);
    for (int64_t e = 0; e < 3; ++e) {
      auto want = exhaustive(scorer, std::vector<int64_t>{3, 8, 21}[e], V, eos, o);
      ASSERT_GE(want.size(), 5u);
      ASSERT_EQ(got[e].size(), 5u) << "alpha " << c.alpha;
      for (int k = 0; k < 5; ++k) {
        EXPECT_EQ(got[e][k].tokens, want[k].tokens) << "example " << e << " rank " << k << " alpha " << c.alpha;
        EXPECT_NEAR(got[e][k].score, want[k].score, 1e-9);
        EXPECT_EQ(got[e][k].eos, want[k].eos);
      }
    }
  }
}

TEST(BeamSearchTest, NarrowBeamNeverBeatsExhaustiveAndRespectsConstraints) {
  const int64_t V = 6, eos = 1;
  SearchOptions o;
  o.beam = 3;
  o.max_len = 6;
  o.min_len = 2;
  o.no_repeat_ngram = 2;
  ToyScorer scorer(V, 5, {0, 1});
  auto got = beam_search(scorer, 2, eos, o);
  for (int64_t e = 0; e < 2; ++e) {
    auto best = exhaustive(scorer, e, V, eos, o).front();
    ASSERT_EQ(got[e].size(), 1u);
    EXPECT_LE(got[e][0].score, best.score + 1e-12);
    const auto& t = got[e][0].tokens;
    EXPECT_GE(t.size(), 2u);
    EXPECT_LE(t.size(), 6u);
    for (size_t i = 0; i + 3 < t.size(); ++i)
      for (size_t j = i + 1; j + 1 < t.size(); ++j) EXPECT_FALSE(t[i] == t[j] && t[i + 1] == t[j + 1]);
  }
}

TEST(BeamSearchTest, ResultDoesNotDependOnBatchComposition) {
  const int64_t V = 7, eos = 2;
  SearchOptions o;
  o.beam = 3;
  o.max_len = 8;
  o.no_repeat_ngram = 3;
  o.length_penalty = 1.0;
  std::vector<int64_t> keys = {4, 9, 1, 16};
  ToyScorer all(V, 3, keys);
  auto batched = beam_search(all, 4, eos, o);
  for (size_t e = 0; e < keys.size(); ++e) {
    ToyScorer one(V, 3, {keys[e]});
    auto single = beam_search(one, 1, eos, o);
    EXPECT_EQ(single[0][0].tokens, batched[e][0].tokens);
    EXPECT_DOUBLE_EQ(single[0][0].score, batched[e][0].score);
  }
}

TEST(GreedyTest, PicksArgmaxEachStep) {
  const int64_t V = 5, eos = 0;
  SearchOptions o;
  o.max_len = 6;
  ToyScorer scorer(V, 2, {7});
  auto got = greedy_or_sample(scorer, {0}, eos, o)[0][0];
  std::vector<int64_t> prefix;
  double lp = 0;
  for (int t = 0; t < o.max_len; ++t) {
    auto p = scorer.log_probs(7, prefix);
    const int64_t w = p.argmax().item<int64_t>();
    lp += p[w].item<double>();
    if (w == eos) break;
    prefix.push_back(w);
  }
  EXPECT_EQ(got.tokens, prefix);
  EXPECT_NEAR(got.log_prob, lp, 1e-12);
}

TEST(SamplingTest, SeededAndIndependentOfBatch) {
  const int64_t V = 9, eos = 0;
  SearchOptions o;
  o.sample = true;
  o.top_k = 5;
  o.top_p = 0.9;
  o.max_len = 10;
  o.seed = 123;
  ToyScorer a(V, 1, {5, 6, 7});
  auto r1 = greedy_or_sample(a, {100, 101, 102}, eos, o);
  ToyScorer b(V, 1, {5, 6, 7});
  auto r2 = greedy_or_sample(b, {100, 101, 102}, eos, o);
  ToyScorer c(V, 1, {6});
  auto r3 = greedy_or_sample(c, {101}, eos, o);
  for (int e = 0; e < 3; ++e) EXPECT_EQ(r1[e][0].tokens, r2[e][0].tokens);
  EXPECT_EQ(r1[1][0].tokens, r3[0][0].tokens);
  // A different seed changes at least one sample.
  o.seed = 124;
  ToyScorer d(V, 1, {5, 6, 7});
  auto r4 = greedy_or_sample(d, {100, 101, 102}, eos, o);
  bool differs = false;
  for (int e = 0; e < 3; ++e) differs |= r4[e][0].tokens != r1[e][0].tokens;
  EXPECT_TRUE(differs);
}

TEST(SamplingTest, TopKOneIsGreedy) {
  const int64_t V = 6, eos = 0;
  SearchOptions o;
  o.max_len = 7;
  ToyScorer g(V, 9, {1, 2});
  auto greedy = greedy_or_sample(g, {0, 1}, eos, o);
  o.sample = true;
  o.top_k = 1;
  ToyScorer s(V, 9, {1, 2});
  auto sampled = greedy_or_sample(s, {0, 1}, eos, o);
  for (int e = 0; e < 2; ++e) EXPECT_EQ(greedy[e][0].tokens, sampled[e][0].tokens);
}

TEST(NgramBlockingTest, BansTokensThatRepeatAnNgram) {
  EXPECT_EQ(banned_by_ngram({1, 2, 3, 1, 2}, 3), std::vector<int64_t>({3}));
  EXPECT_EQ(banned_by_ngram({1, 2, 1, 2, 1}, 2), std::vector<int64_t>({2, 2}));
  EXPECT_TRUE(banned_by_ngram({1, 2}, 3).empty());
  EXPECT_TRUE(banned_by_ngram({5, 6, 7}, 0).empty());
}

}  // namespace
}  // namespace unieval::models

namespace unieval::models {
namespace {

// ToyScorer's distribution with rounded logits (many exact ties, also at the top-k cut), in float
// or double.
class TiedScorer : public ToyScorer {
 public:
  TiedScorer(int64_t vocab, uint64_t seed, std::vector<int64_t> keys, torch::ScalarType dtype)
      : ToyScorer(vocab, seed, std::move(keys)), dtype_(dtype) {}
  torch::Tensor step(const StepRequest& req) override {
    return torch::log_softmax(torch::round(ToyScorer::step(req)), 1).to(dtype_);
  }

 private:
  torch::ScalarType dtype_;
};

// The tensor beam search (top-k on the device) returns exactly what the host reference returns.
TEST(BeamSearchTest, TensorSearchEqualsReference) {
  const int64_t eos = 3;
  int compared = 0;
  for (int64_t V : {5, 40}) {
    for (int beam : {2, 3, 5}) {
      for (const Case& c : {Case{0.0, 0, 0}, Case{1.0, 2, 0}, Case{0.6, 0, 3}, Case{0.0, 3, 2}}) {
        for (auto dtype : {torch::kFloat, torch::kDouble}) {
          SearchOptions o;
          o.beam = beam;
          o.n_best = beam;
          o.max_len = 7;
          o.length_penalty = c.alpha;
          o.min_len = c.min_len;
          o.no_repeat_ngram = c.ngram;
          TiedScorer a(V, 11 + beam, {0, 1, 2}, dtype), b(V, 11 + beam, {0, 1, 2}, dtype);
          auto got = beam_search(a, 3, eos, o);
          auto want = beam_search_reference(b, 3, eos, o);
          ASSERT_EQ(got.size(), want.size());
          for (size_t e = 0; e < got.size(); ++e) {
            ASSERT_EQ(got[e].size(), want[e].size());
            for (size_t i = 0; i < got[e].size(); ++i) {
              EXPECT_EQ(got[e][i].tokens, want[e][i].tokens) << "V " << V << " beam " << beam;
              EXPECT_EQ(got[e][i].log_prob, want[e][i].log_prob);
              EXPECT_EQ(got[e][i].score, want[e][i].score);
              EXPECT_EQ(got[e][i].eos, want[e][i].eos);
              ++compared;
            }
          }
          EXPECT_EQ(a.calls, b.calls);
        }
      }
    }
  }
  EXPECT_GT(compared, 100);
}

}  // namespace
}  // namespace unieval::models
