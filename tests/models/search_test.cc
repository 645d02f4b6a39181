// Beam search, greedy and sampling over toy scorers: beam search with a wide beam equals
// exhaustive search; n-gram blocking, min/max length, batch independence.
#include "models/decoding/search.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>
#include <numeric>

#include "core/error.h"
#include "tests/models/beam_search_reference.h"

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
    rows += static_cast<int64_t>(prefix.size());
    ++calls;
    return out;
  }
  torch::Tensor log_probs(int64_t key, const std::vector<int64_t>& prefix) const {
    uint64_t h = seed_ * 1000003 + key;
    for (int64_t t : prefix) h = h * 31 + t + 7;
    auto gen = at::detail::createCPUGenerator(h);
    torch::Tensor logits =
        torch::randn({vocab_}, gen, torch::TensorOptions().dtype(torch::kDouble)) * 2.0;
    if (eos_boost != 0) logits[eos_index] += eos_boost * static_cast<double>(prefix.size());
    return torch::log_softmax(logits, 0);
  }
  int calls = 0;
  int64_t rows = 0;      // rows scored over all calls
  double eos_boost = 0;  // added to the logit of eos_index per generated token
  int64_t eos_index = 0;

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
  std::function<void(std::vector<int64_t>&, double)> rec = [&](std::vector<int64_t>& prefix,
                                                               double lp) {
    torch::Tensor p = s.log_probs(key, prefix);
    auto banned = banned_by_ngram(prefix, o.no_repeat_ngram, o.ngram_ignore);
    for (int64_t w = 0; w < vocab; ++w) {
      if (w == eos && static_cast<int>(prefix.size()) < o.min_len) continue;
      if (o.no_repeat_ngram > 0 && std::find(banned.begin(), banned.end(), w) != banned.end())
        continue;
      const double l = lp + p[w].item<double>();
      const int64_t len = static_cast<int64_t>(prefix.size()) + 1;
      if (w == eos || len == o.max_len) {
        // Copy-constructed, not assigned into the empty h.tokens: GCC 12 -O3 warns falsely
        // (-Wnonnull, memmove to null) on that assignment here.
        std::vector<int64_t> tokens(prefix);
        if (w != eos) tokens.push_back(w);
        Hypothesis h;
        h.tokens = std::move(tokens);
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
  std::stable_sort(all.begin(), all.end(),
                   [](const Hypothesis& a, const Hypothesis& b) { return a.score > b.score; });
  return all;
}

struct Case {
  double alpha;
  int min_len;
  int ngram;
};

TEST(BeamSearchTest, WideBeamEqualsExhaustiveSearch) {
  const int64_t V = 4, eos = 0;
  for (const Case& c : {Case{0.0, 0, 0}, Case{1.0, 0, 0}, Case{0.6, 2, 0}, Case{0.0, 1, 2},
                        Case{2.0, 0, 2}, Case{0.0, 0, -2}, Case{1.0, 1, -2}}) {
    SearchOptions o;
    o.max_len = 5;
    if (c.ngram < 0) o.ngram_ignore = {2};  // negative: the n-gram ban with token 2 exempt
    o.length_penalty = c.alpha;
    o.min_len = c.min_len;
    o.no_repeat_ngram = std::abs(c.ngram);
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
        EXPECT_EQ(got[e][k].tokens, want[k].tokens)
            << "example " << e << " rank " << k << " alpha " << c.alpha;
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
      for (size_t j = i + 1; j + 1 < t.size(); ++j)
        EXPECT_FALSE(t[i] == t[j] && t[i + 1] == t[j + 1]);
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

// UniLM get_dup_ngram_candidates with forbid_ignore_set: an ignored word in the context bans
// nothing; an ignored word is never banned; other words are banned as before.
TEST(NgramBlockingTest, IgnoredWordsAsUnilmForbidIgnoreWord) {
  EXPECT_TRUE(banned_by_ngram({1, 2, 3, 1, 2}, 3, {3}).empty());  // candidate ignored
  EXPECT_TRUE(banned_by_ngram({1, 2, 3, 1, 2}, 3, {2}).empty());  // context holds an ignored word
  EXPECT_TRUE(banned_by_ngram({1, 2, 3, 1, 2}, 3, {1}).empty());
  EXPECT_EQ(banned_by_ngram({1, 2, 3, 1, 2}, 3, {7}), std::vector<int64_t>({3}));  // not involved
  EXPECT_EQ(banned_by_ngram({4, 9, 4, 5, 4}, 2, {5}),
            std::vector<int64_t>({9}));  // 4->5 kept, 4->9 banned
  EXPECT_TRUE(banned_by_ngram({4, 9, 4, 5, 4}, 2, {4}).empty());
}

// A scorer that always prefers to alternate 1 and 2 ("w . w . w ."), with EOS (0) and 3 unlikely.
class AlternatingScorer : public StepScorer {
 public:
  torch::Tensor step(const StepRequest& req) override {
    std::vector<int64_t> last(req.example.size(), -1);
    for (size_t r = 0; r < req.example.size(); ++r)
      if (req.step > 0) last[r] = req.last_token[r];
    torch::Tensor out = torch::empty({static_cast<int64_t>(last.size()), 4}, torch::kDouble);
    for (size_t r = 0; r < last.size(); ++r) {
      const bool want_dot = last[r] == 1;
      torch::Tensor logits =
          torch::tensor({-4.0, want_dot ? -2.0 : 3.0, want_dot ? 3.0 : -2.0, -1.0}, torch::kDouble);
      out[r] = torch::log_softmax(logits, 0);
    }
    return out;
  }
};

TEST(NgramBlockingTest, IgnoredWordChangesTheSearchResult) {
  for (const char* algorithm : {"exact", "unilm"}) {
    SearchOptions o;
    o.beam = 2;
    o.max_len = 6;
    o.no_repeat_ngram = 2;
    o.algorithm = algorithm;
    AlternatingScorer a;
    const auto banned = generate(a, {0}, 0, o)[0][0].tokens;
    // Without exemptions no bigram repeats, so the alternation is impossible.
    EXPECT_NE(banned, std::vector<int64_t>({1, 2, 1, 2, 1, 2})) << algorithm;
    for (size_t i = 0; i + 1 < banned.size(); ++i)
      for (size_t j = i + 1; j + 1 < banned.size(); ++j)
        EXPECT_FALSE(banned[i] == banned[j] && banned[i + 1] == banned[j + 1]) << algorithm;
    o.ngram_ignore = {2};  // "." exempt: the alternation goes on to max_len
    AlternatingScorer b;
    auto got = generate(b, {0}, 0, o)[0][0].tokens;
    EXPECT_EQ(got, std::vector<int64_t>({1, 2, 1, 2, 1, 2})) << algorithm;
  }
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
      for (const Case& c :
           {Case{0.0, 0, 0}, Case{1.0, 2, 0}, Case{0.6, 0, 3}, Case{0.0, 3, 2}, Case{0.0, 0, -2}}) {
        for (auto dtype : {torch::kFloat, torch::kDouble}) {
          SearchOptions o;
          o.beam = beam;
          o.n_best = beam;
          o.max_len = 7;
          o.length_penalty = c.alpha;
          o.min_len = c.min_len;
          o.no_repeat_ngram = std::abs(c.ngram);
          if (c.ngram < 0) o.ngram_ignore = {1, 4};
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

namespace unieval::models {
namespace {

// microsoft/unilm BertForSeq2SeqDecoder.beam_search written out for one example on host doubles:
// K entries per frame, every frame to max_len (no early stop), full per-row distributions.
BeamTrace unilm_reference(const ToyScorer& s, int64_t key, int64_t eos, const SearchOptions& o) {
  const int K = o.beam;
  BeamTrace t;
  std::vector<std::vector<int64_t>> seqs(1);
  std::vector<double> beam_scores(1, 0.0);
  std::vector<double> beam_eos(1, 0.0);
  for (int step = 0; step < o.max_len; ++step) {
    struct C {
      double s;
      int64_t row, tok;
    };
    std::vector<C> cand;
    for (size_t r = 0; r < seqs.size(); ++r) {
      torch::Tensor p = s.log_probs(key, seqs[r]);
      std::vector<double> lp(p.data_ptr<double>(), p.data_ptr<double>() + p.numel());
      if (o.no_repeat_ngram > 0) {
        auto b = banned_by_ngram(seqs[r], o.no_repeat_ngram, o.ngram_ignore);
        std::sort(b.begin(), b.end());
        b.erase(std::unique(b.begin(), b.end()), b.end());
        for (int64_t w : b) lp[w] += -10000.0;
      }
      if (o.min_len > 0 && step < o.min_len) lp[eos] = -10000.0;
      std::vector<int64_t> order(lp.size());
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(),
                       [&](int64_t a, int64_t b) { return lp[a] > lp[b]; });
      for (int j = 0; j < K; ++j) {
        const double v =
            step == 0 ? lp[order[j]] : lp[order[j]] + (beam_eos[r] * -10000.0 + beam_scores[r]);
        cand.push_back({v, static_cast<int64_t>(r), order[j]});
      }
    }
    std::stable_sort(cand.begin(), cand.end(), [](const C& a, const C& b) { return a.s > b.s; });
    cand.resize(K);
    std::vector<std::vector<int64_t>> next;
    t.scores.emplace_back();
    t.wids.emplace_back();
    t.ptrs.emplace_back();
    beam_scores.clear();
    beam_eos.clear();
    for (const C& c : cand) {
      t.scores.back().push_back(c.s);
      t.wids.back().push_back(c.tok);
      t.ptrs.back().push_back(c.row);
      next.push_back(seqs[c.row]);
      next.back().push_back(c.tok);
      beam_scores.push_back(c.s);
      beam_eos.push_back(c.tok == eos ? 1.0 : 0.0);
    }
    seqs = std::move(next);
  }
  return t;
}

TEST(UnilmBeamSearchTest, EqualsUnilmsAlgorithmWrittenOut) {
  const int64_t V = 7, eos = 2;
  const std::vector<int64_t> keys = {3, 8, 21, 5};
  int compared = 0, stopped_early = 0, eos_picked = 0;
  for (int K : {2, 3, 4}) {
    for (double boost : {0.0, 1.5}) {
      for (int variant = 0; variant < 5; ++variant) {
        SearchOptions o;
        o.algorithm = "unilm";
        o.beam = K;
        o.max_len = 7;
        o.min_len = variant == 1 ? 2 : 0;
        o.no_repeat_ngram = variant >= 2 ? 2 : 0;
        if (variant == 3) o.ngram_ignore = {1, 4};
        o.length_penalty = variant == 1 ? 1.0 : 0.0;
        o.trace_alpha = variant == 4 ? 1.0 : 0.0;
        ToyScorer scorer(V, 17 + K, keys);
        scorer.eos_boost = boost;
        scorer.eos_index = eos;
        std::vector<BeamTrace> traces;
        auto got = beam_search_unilm(scorer, static_cast<int64_t>(keys.size()), eos, o, /*pad=*/0,
                                     &traces);
        ASSERT_EQ(got.size(), keys.size());
        for (size_t e = 0; e < keys.size(); ++e) {
          ToyScorer ref_scorer(V, 17 + K, keys);
          ref_scorer.eos_boost = boost;
          ref_scorer.eos_index = eos;
          const BeamTrace want = unilm_reference(ref_scorer, keys[e], eos, o);
          // The search stops an example at its first all-EOS frame; the frames up to it agree.
          const BeamTrace& tr = traces[e];
          ASSERT_GE(tr.wids.size(), 1u);
          ASSERT_LE(tr.wids.size(), want.wids.size());
          if (tr.wids.size() < want.wids.size()) ++stopped_early;
          for (size_t f = 0; f < tr.wids.size(); ++f) {
            EXPECT_EQ(tr.wids[f], want.wids[f]) << "K " << K << " frame " << f;
            EXPECT_EQ(tr.ptrs[f], want.ptrs[f]) << "K " << K << " frame " << f;
            EXPECT_EQ(tr.scores[f], want.scores[f]) << "K " << K << " frame " << f;
          }
          const Hypothesis h = best_from_trace(want, eos, 0, o);
          ASSERT_EQ(got[e].size(), 1u);
          EXPECT_EQ(got[e][0].tokens, h.tokens) << "K " << K << " variant " << variant;
          EXPECT_EQ(got[e][0].score, h.score);
          EXPECT_EQ(got[e][0].log_prob, h.log_prob);
          EXPECT_EQ(got[e][0].eos, h.eos);
          eos_picked += h.eos;
          ++compared;
        }
      }
    }
  }
  EXPECT_EQ(compared, 3 * 2 * 5 * 4);
  EXPECT_GT(stopped_early, 0);  // the early stop was exercised
  EXPECT_GT(eos_picked, 0);
}

// Hand-made traces (K = 2, EOS = 0, [PAD] = 9).
BeamTrace hand_trace() {
  BeamTrace t;
  t.wids = {{5, 0}, {6, 9}, {0, 7}};
  t.scores = {{-1.0, -1.5}, {-2.0, -2.2}, {-1.9, -6.0}};
  t.ptrs = {{0, 0}, {0, 0}, {0, 0}};
  return t;
}

TEST(UnilmBeamSearchTest, PickFromTraceAsDecodeSeq2seqAndGenSeqFromTrace) {
  SearchOptions o;
  o.algorithm = "unilm";
  o.beam = 2;
  // decode_seq2seq, no length penalty: the best EOS entry or last-frame entry by raw score:
  // frame 0's EOS (-1.5) beats frame 2's (-1.9); [PAD] is not an end there.
  Hypothesis h = best_from_trace(hand_trace(), 0, 9, o);
  EXPECT_TRUE(h.tokens.empty());
  EXPECT_TRUE(h.eos);
  EXPECT_DOUBLE_EQ(h.score, -1.5);
  // --length_penalty 1: score / ((5 + len) / 6): frame 2's EOS -1.9 / (8/6) = -1.425 wins.
  o.length_penalty = 1.0;
  h = best_from_trace(hand_trace(), 0, 9, o);
  EXPECT_EQ(h.tokens, std::vector<int64_t>({5, 6}));
  EXPECT_DOUBLE_EQ(h.score, -1.9 / (8.0 / 6.0));
  EXPECT_DOUBLE_EQ(h.log_prob, -1.9);
  // gen_seq_from_trace --alpha 1: [PAD] entries are ends too: frame 1's -2.2 / (7/6) = -1.886 <
  // -1.425, frame 2 still wins; with a better [PAD] entry it is picked (tokens cut before it).
  o.length_penalty = 0.0;
  o.trace_alpha = 1.0;
  h = best_from_trace(hand_trace(), 0, 9, o);
  EXPECT_EQ(h.tokens, std::vector<int64_t>({5, 6}));
  BeamTrace t = hand_trace();
  t.scores[1][1] = -1.2;  // -1.2 / (7/6) = -1.029
  h = best_from_trace(t, 0, 9, o);
  EXPECT_EQ(h.tokens, std::vector<int64_t>({5}));
  EXPECT_TRUE(h.eos);
  EXPECT_DOUBLE_EQ(h.score, -1.2 / (7.0 / 6.0));
  // ... but not by decode_seq2seq (trace_alpha 0), where [PAD] is no end.
  o.trace_alpha = 0.0;
  EXPECT_TRUE(best_from_trace(t, 0, 9, o).tokens.empty());
  // gen_seq_from_trace skips entries with score >= 0 (taken for padding).
  o.trace_alpha = 1.0;
  t.scores[1][1] = 0.0;
  EXPECT_EQ(best_from_trace(t, 0, 9, o).tokens, std::vector<int64_t>({5, 6}));
  // The last frame is the first all-EOS frame; later frames are never read.
  t = hand_trace();
  t.wids.push_back({0, 0});
  t.scores.push_back({-0.1, -0.2});
  t.ptrs.push_back({1, 1});
  t.wids.push_back({4, 4});
  t.scores.push_back({-0.01, -0.02});
  t.ptrs.push_back({0, 0});
  o.trace_alpha = 0.0;
  h = best_from_trace(t, 0, 9, o);
  EXPECT_EQ(h.tokens,
            std::vector<int64_t>({5, 6, 7}));  // frame 3 entry 0 extends frame 2 entry 1 (7)
  EXPECT_DOUBLE_EQ(h.log_prob, -0.1);
}

TEST(UnilmBeamSearchTest, OptionsChecked) {
  SearchOptions o;
  o.algorithm = "fairseq";
  EXPECT_THROW(validate(o), InputError);
  o.algorithm = "exact";
  o.trace_alpha = 1.0;
  EXPECT_THROW(validate(o), InputError);
  o.algorithm = "unilm";
  EXPECT_NO_THROW(validate(o));
  o.beam = 3;
  o.n_best = 2;
  EXPECT_THROW(validate(o), InputError);
}

}  // namespace
}  // namespace unieval::models
