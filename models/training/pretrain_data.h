#pragma once
// Unified language-model pre-training examples (UniLM, Dong et al. 2019, §2.1–2.4): segments
// sampled from a token shard (models/training/pretrain_shard.h), packed, cloze-masked and batched with the
// self-attention mask of their objective (models/nn/masks.h).
//
// Objectives (MaskKind) and their inputs; segment ids as UniLM v1's `new_segment_ids`
// (microsoft/unilm, unilm-v1/src/biunilm/seq2seq_loader.py and the type_vocab_size-6 embedding
// initialisation in pytorch_pretrained_bert/modeling.py):
//   | objective      | input                          | segment ids (unilm) | (bert) | extra        |
//   |----------------|--------------------------------|---------------------|--------|--------------|
//   | bidirectional  | [CLS] A [SEP] B [SEP]          | 0 … 0, 1 … 1        | 0 / 1  | NSP on [CLS] |
//   | seq2seq        | [CLS] A [SEP] B [SEP]          | 4 … 4, 5 … 5        | 0 / 1  |              |
//   | left-to-right  | [CLS] S [SEP]                  | 2 …                 | 0      |              |
//   | right-to-left  | [CLS] S [SEP]                  | 3 …                 | 0      |              |
// A and B are consecutive sentences of one document cut at a random sentence boundary (one long
// sentence is cut at a random token); for the bidirectional objective B is, with probability
// nsp_random_prob (and always when the chunk is one sentence), text from a random sentence of another
// document (chosen uniformly among the other documents) and the
// NSP label is 1 ("random"), else 0 ("is next", HF's convention). Pairs are truncated as BERT's
// `truncate_seq_pair` (the longer side loses a token at its front or back, at random). The text
// budget is max_len minus the special tokens, or with probability short_seq_prob a random length
// in [2, budget] (BERT's short_seq_prob).
//
// Masking (UniLM §2.3–2.4), the same for every objective, over the text tokens of both segments
// ([CLS]/[SEP] are never masked): n = min(max_pred, max(1, round(mask_prob · text tokens)))
// positions; candidates in random order, each starting a span of one token, or with probability
// span_prob a bigram or trigram (length uniform in [2, max_span]); a span stops at a special token
// or when n positions are chosen. Each chosen position is replaced by [MASK] 80%, a random regular
// token 10%, itself 10%; its original token is the label.
//
// Batches: example g = (step · accum + micro) · batch_size + i takes objective cycle[g mod |cycle|]
// (unified: bi, s2s, bi, s2s, l2r, r2l — 1/3, 1/3, 1/6, 1/6 of every batch whose size is a multiple
// of 6); its text and masks are drawn from a generator seeded by (seed, g), so a batch is a pure
// function of (shard, options, seed, step, micro): resuming needs no data state.
//
// | PretrainDataOptions | default | meaning                                                    |
// |---------------------|---------|------------------------------------------------------------|
// | max_len             | 128     | tokens per example, special tokens included                |
// | mask_prob           | 0.15    | fraction of text tokens masked                             |
// | max_pred            | 20      | cap on masked positions per example                        |
// | span_prob           | 0.2     | a masked span is a bigram/trigram instead of one token     |
// | max_span            | 3       | longest span                                               |
// | short_seq_prob      | 0.1     | shorter text budget (BERT)                                 |
// | nsp_random_prob     | 0.5     | bidirectional pairs whose B is from another document       |
// | segments            | unilm   | "unilm" (ids 0–5, type_vocab_size ≥ 6) or "bert" (0/1)     |
#include <torch/torch.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "models/nn/masks.h"
#include "models/training/pretrain_shard.h"
#include "models/training/seq2seq_data.h"

namespace unieval::models {

struct PretrainDataOptions {
  int64_t max_len = 128;           // tokens per example, specials included
  double mask_prob = 0.15;         // masked fraction of text tokens
  int64_t max_pred = 20;           // masked positions cap
  double span_prob = 0.2;          // bigram/trigram instead of one token
  int64_t max_span = 3;            // longest masked span
  double short_seq_prob = 0.1;     // shorter text budget
  double nsp_random_prob = 0.5;    // random-next fraction of bidirectional pairs
  std::string segments = "unilm";  // segment-id scheme (table above)

  // InputError on impossible values.
  void validate() const;
  // Largest segment id used by the scheme for these objectives (+1 = type_vocab_size needed).
  int64_t max_segment_id(const std::vector<MaskKind>& cycle) const;
};

// The objective cycle of --objectives: "unified" (bi, s2s, bi, s2s, l2r, r2l), or one of
// models/nn/masks.h's names for a single objective; "ernie-gen" gives {seq2seq} (its segment ids;
// its batches come from models/training/ernie_gen.h). InputError otherwise.
std::vector<MaskKind> objective_cycle(const std::string& objectives);

// Segment ids of an objective: {first segment, second segment} (single-segment objectives use
// the first for every token).
std::pair<int64_t, int64_t> segment_ids(MaskKind objective, const std::string& scheme);

// One packed, masked example.
struct PretrainInstance {
  MaskKind objective = MaskKind::kBidirectional;
  std::vector<int64_t> input_ids;         // after masking, [CLS] ... [SEP]
  std::vector<int64_t> token_type_ids;    // segment ids
  int64_t source_length = 0;              // |[CLS] A [SEP]| for pairs; the length for singles
  std::vector<int64_t> masked_positions;  // ascending
  std::vector<int64_t> labels;            // original tokens at masked_positions
  int64_t nsp_label = -1;                 // bidirectional: 0 is-next, 1 random; else -1
};

// The cloze masking of the header comment over the positions where candidate[t] is set (the same
// length as input_ids): input_ids are masked in place (80/10/10); the chosen positions (ascending)
// and their original tokens are appended to positions and labels. No candidate: nothing is drawn.
// Also the masked-LM auxiliary loss of fine-tuning (models/training/nlu.h MlmAux).
void cloze_mask(std::vector<int64_t>& input_ids, const std::vector<char>& candidate,
                const PretrainDataOptions& opts, const SpecialIds& ids, std::mt19937_64& rng,
                std::vector<int64_t>& positions, std::vector<int64_t>& labels);

PretrainInstance make_instance(const TokenShard& shard, MaskKind objective,
                               const PretrainDataOptions& opts, const SpecialIds& ids,
                               std::mt19937_64& rng);

// A padded batch (CPU tensors).
struct PretrainBatch {
  torch::Tensor input_ids;       // [B,T] int64
  torch::Tensor token_type_ids;  // [B,T] int64
  torch::Tensor attention_mask;  // [B,T,T] int64 0/1: each row's objective mask (models/nn/masks.h)
  torch::Tensor masked_index;    // [N] flat b*T + t
  torch::Tensor labels;          // [N]
  torch::Tensor masked_objective;    // [N] int64 MaskKind of each masked position's example
  torch::Tensor nsp_rows;            // [K] examples with an NSP label
  torch::Tensor nsp_labels;          // [K]
  std::vector<MaskKind> objectives;  // per example
  int64_t tokens = 0;                // non-padding tokens
};

PretrainBatch collate(const std::vector<PretrainInstance>& instances, int64_t pad_id);

// The micro-batch `micro` of optimizer step `step` (header comment).
PretrainBatch make_pretrain_batch(const TokenShard& shard, const std::vector<MaskKind>& cycle,
                                  const PretrainDataOptions& opts, const SpecialIds& ids,
                                  uint64_t seed, int64_t step, int64_t micro, int64_t accum,
                                  int64_t batch_size);

}  // namespace unieval::models
