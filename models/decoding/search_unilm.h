#pragma once
// Follows UniLM (MIT) and ERNIE-GEN (Apache-2.0) behaviour; no code copied; see
// THIRD_PARTY_NOTICES.md.
// UniLM incremental decoding as a StepScorer (models/decoding/search.h): the next-token distribution of
// "[CLS] S1 [SEP] y1 .. y(t-1) [MASK]" under the seq2seq mask, read at the [MASK] position.
//
// Cached (default), as unilm s2s-ft `BertForSeq2SeqDecoder`: the source is encoded once and its
// keys/values cached; step 0 feeds [MASK] at position |S1|+2; step t ≥ 1 feeds
// [y(t-1), MASK] at positions (|S1|+2+t-1, |S1|+2+t) and caches only y(t-1) (a token's states
// depend only on the tokens before it, so the cache is exact); beams are reordered by the
// request's parent indices. The per-row cache is preallocated (reserve_cache: the source plus 64
// positions, doubled when a longer output needs it) and reordered in place. Uncached re-runs the whole packed sequence every step (the reference
// the cached path is tested against: same tokens, scores within float tolerance).
//
// A batch holds examples of different source lengths: sources are right-padded, pad keys are
// masked out for every query, and positions are explicit per row, so an example's result does not
// depend on the other examples (up to float rounding of differently shaped matrix products).
//
// ERNIE-GEN's infilling decoding (Xiao et al. 2020, §3.4, Figure 4) is this procedure with the
// [ATTN] symbol as the query token (query_token = ids.attn): at each step [ATTN] is inserted at
// the next position and attends to the source, the generated words and itself (M_W), its
// prediction replaces it in the contextual flow (the fed-back word, cached, sees the source and
// the words up to itself: M_C) and the [ATTN] is dropped (never cached). Training and decoding
// then agree position for position (tested against models/training/ernie_gen.h multi_flow_forward).
// A model with the copy head (config unieval_copy, models/nn/copy_head.h) mixes each step's
// distribution with a copy of its example's source, read from the source's last-layer states
// (kept from the encoding when cached, from the packed sequence's source part when not).
// With types.target_bos (the official ERNIE-GEN layout) step 0 feeds [[CLS], ATTN] and caches the
// [CLS]; every later position is one further on.
//
//   UnilmStepScorer scorer(model, sources, ids, {.source_type = 0, .target_type = 1});
//   auto nbest = generate(scorer, example_ids, ids.sep, search_opts);
#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "models/decoding/search.h"
#include "models/nn/transformer.h"
#include "models/training/seq2seq_data.h"

namespace unieval::models {

class UnilmStepScorer : public StepScorer {
 public:
  // sources: token ids without specials (already truncated). The model is used as given (call
  // eval() first); tensors go to the device of its parameters.
  // query_token: the symbol fed at the position being predicted (-1: ids.mask, UniLM; ids.attn:
  // ERNIE-GEN infilling decoding).
  UnilmStepScorer(UnilmModel model, std::vector<std::vector<int64_t>> sources, SpecialIds ids,
                  Seq2SeqDataOptions types, bool use_cache = true, int64_t query_token = -1);
  torch::Tensor step(const StepRequest& req) override;

 private:
  torch::Tensor step_cached(const StepRequest& req);
  torch::Tensor step_uncached(const StepRequest& req);
  // [R,H] -> [R,V] float log-probabilities; with the copy head (config unieval_copy) the mixture
  // over the sources of each row's example (`examples`, [R] int64 on the device).
  torch::Tensor log_probs(const torch::Tensor& hidden, const torch::Tensor& examples);
  // Feeds [prev, query] at positions (pos, pos + 1) of every row, caches prev; the query's
  // next-token log-probabilities.
  // examples: [R] int64 each row's example (the copy head's source).
  torch::Tensor feed_pair(const std::vector<int64_t>& prev, const std::vector<int64_t>& pos,
                          const torch::Tensor& examples);

  UnilmModel model_;
  std::vector<std::vector<int64_t>> sources_;
  SpecialIds ids_;
  Seq2SeqDataOptions types_;
  bool use_cache_;
  int64_t query_;  // [MASK] (UniLM) or [ATTN] (ERNIE-GEN)
  torch::Device device_;
  std::vector<int64_t> src_len_;  // packed source length per example ([CLS] S1 [SEP])
  // cached state, one row per live hypothesis
  KVCache source_cache_;    // [B, ...] encoded sources
  CopySource copy_source_;  // [B, ...] the sources' last-layer states (copy head only)
  KVCache cache_;           // per row (source + generated prefix)
  torch::Tensor valid_;     // [rows, cached] 0/1: which cached keys are real
  // uncached state
  std::vector<std::vector<int64_t>> prefix_;  // per row: generated tokens
};

}  // namespace unieval::models
