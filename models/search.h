#pragma once
// Follows HF transformers (Apache-2.0) and UniLM (MIT) behaviour; clean-room, see
// THIRD_PARTY_NOTICES.md.
// Decoding algorithms over an abstract next-token scorer: beam search, greedy, and top-k/top-p
// sampling. The model side (UniLM incremental decoding with cached keys/values) is a StepScorer
// in models/search_unilm.h; these functions only see log-probabilities, so they are tested
// against toy scorers (beam search with a wide beam == exhaustive search).
//
//   SearchOptions opts;  opts.beam = 5;  opts.no_repeat_ngram = 3;  opts.max_len = 32;
//   auto nbest = generate(scorer, /*example ids*/ {0, 1, 2}, eos_id, opts);
//   nbest[i][0].tokens   // best hypothesis of example i, without the EOS
//
// | option          | default | meaning                                                              |
// |-----------------|---------|----------------------------------------------------------------------|
// | beam            | 1       | beam size K (1 and sample = false: greedy)                            |
// | n_best          | 1       | hypotheses returned per example (≤ beam)                              |
// | length_penalty  | 0       | alpha: score = sum log p / len^alpha, len counts the EOS (HF style)   |
// | min_len         | 0       | EOS is forbidden before this many tokens have been generated         |
// | max_len         | 32      | at most this many tokens (EOS included); a hypothesis that reaches it |
// |                 |         | without EOS ends there ("truncated")                                 |
// | no_repeat_ngram | 0       | n > 0: a token that would repeat an n-gram of the hypothesis is banned |
// |                 |         | (fairseq/UniLM "remove duplicated trigrams" with n = 3)              |
// | sample          | false   | sample each token instead of searching (beam ignored)                |
// | top_k, top_p    | 0, 1.0  | sampling: keep the k best / the smallest set with mass ≥ p (0/1: off) |
// | temperature     | 1.0     | sampling: logits divided by it                                       |
// | seed            | 0       | sampling: each example draws from its own generator seeded by (seed,  |
// |                 |         | example id), so results do not depend on batch composition           |
//
// Beam search, precisely (one step, per example): every live hypothesis h (log-prob s_h) is
// extended by every allowed token w: s = s_h + log p(w|h). Extensions by EOS, and extensions that
// reach max_len, become finished candidates; of the others the K best (by s; ties by row then
// token) stay live. The finished set keeps the K best by normalised score. An example stops when
// it has no live hypothesis, or K finished ones and no live hypothesis can still beat the K-th
// (log-probs only fall; with alpha the bound is taken at the best reachable length), so the
// result equals running every hypothesis to max_len, and with K ≥ |V|^max_len equals exhaustive
// search. Results of an example never depend on the other examples in the batch.
#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace unieval::models {

struct SearchOptions {
  int beam = 1;                 // beam size K
  int n_best = 1;               // hypotheses returned per example
  double length_penalty = 0.0;  // alpha (score = logp / len^alpha)
  int min_len = 0;              // EOS forbidden before this many tokens
  int max_len = 32;             // maximum generated tokens, EOS included
  int no_repeat_ngram = 0;      // n-gram blocking size (0 = off)
  bool sample = false;          // sampling instead of search
  int top_k = 0;                // sampling: top-k filter (0 = off)
  double top_p = 1.0;           // sampling: nucleus filter (1 = off)
  double temperature = 1.0;     // sampling: temperature
  uint64_t seed = 0;            // sampling: seed
};

// Checks ranges (InputError naming the option).
void validate(const SearchOptions& opts);

// What the search asks the scorer for at one step. Row r continues row parent[r] of the previous
// call by appending last_token[r] (both empty at step 0, where there is one row per example).
struct StepRequest {
  int step = 0;                      // tokens already generated in every row
  std::vector<int64_t> example;      // per row: index of its example in the batch
  std::vector<int64_t> parent;       // per row: row index in the previous request (step > 0)
  std::vector<int64_t> last_token;   // per row: the token appended at step-1 (step > 0)
};

class StepScorer {
 public:
  virtual ~StepScorer() = default;
  // Log-probabilities [rows, vocab] of the next token of every row of req.
  virtual torch::Tensor step(const StepRequest& req) = 0;
};

struct Hypothesis {
  std::vector<int64_t> tokens;  // generated tokens, EOS excluded
  double log_prob = 0.0;        // sum of log-probabilities (EOS included when finished by it)
  double score = 0.0;           // log_prob / len^alpha
  bool eos = false;             // ended by EOS (false: reached max_len)
};

// n-best lists (best first) for examples 0..example_ids.size()-1 of the scorer's batch;
// example_ids are the examples' global ids (they seed sampling).
std::vector<std::vector<Hypothesis>> generate(StepScorer& scorer,
                                              const std::vector<int64_t>& example_ids,
                                              int64_t eos, const SearchOptions& opts);

// Beam search with the vocabulary distribution kept on the scorer's device: per step the bans are
// applied there (NaN -> -inf, min_len, n-gram bans scattered from the hypotheses' token ids), one
// top-(K+2) over the vocabulary per row runs there, and only [rows, K+2] values/ids plus the EOS
// column come to the host, where the finished/live bookkeeping runs on those few candidates. The
// result is identical to beam_search_reference (same candidates reach the same decisions; a
// top-k tie at the cut is resolved exactly, smallest token id first): tested.
std::vector<std::vector<Hypothesis>> beam_search(StepScorer& scorer, int64_t n_examples,
                                                 int64_t eos, const SearchOptions& opts);
// The previous implementation: every step copies the whole [rows, V] distribution to the host as
// float64 and walks it. Kept as the oracle of the tests and the baseline of bench/search_bench.cc.
std::vector<std::vector<Hypothesis>> beam_search_reference(StepScorer& scorer, int64_t n_examples,
                                                           int64_t eos, const SearchOptions& opts);
// Greedy (opts.sample false) or sampling: one hypothesis per example.
std::vector<std::vector<Hypothesis>> greedy_or_sample(StepScorer& scorer,
                                                      const std::vector<int64_t>& example_ids,
                                                      int64_t eos, const SearchOptions& opts);

// Tokens banned after `prefix` by n-gram blocking of size n (tokens that follow an earlier
// occurrence of the last n-1 tokens). Exposed for tests.
std::vector<int64_t> banned_by_ngram(const std::vector<int64_t>& prefix, int n);

// Normalised score of a hypothesis of `len` tokens (EOS included) with log-prob lp.
double length_normalised(double lp, int64_t len, double alpha);

}  // namespace unieval::models
