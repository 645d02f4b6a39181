#pragma once
// Follows UniLM (MIT) behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
// UniLM sequence-to-sequence training data: packing, target masking, batching by token budget,
// and a synthetic task generator for the demo and the end-to-end test.
//
// Packing (UniLM §2.5): "[CLS] S1 [SEP] S2 [SEP]" with segment ids source_type for "[CLS] S1 [SEP]"
// and target_type for "S2 [SEP]", under the seq2seq self-attention mask (source positions see the
// source; target positions see the source and the target up to themselves; padding is seen by no
// one). Target masking: n = max(1, round(mask_prob · |S2 [SEP]|)) positions of "S2 [SEP]" (the
// final [SEP] included, so the model learns to stop), at most max_pred, drawn without replacement
// (unilm s2s-ft `Preprocess4Seq2seq`); each is replaced by [MASK] or, with mask_80_10_10, by [MASK]
// 80% / a random token 10% / itself 10% (BERT's rule). The loss is computed at those positions only.
//
//   Seq2SeqDataOptions o;  o.max_src_len = 192;  o.max_tgt_len = 32;  o.mask_prob = 0.7;
//   auto batches = make_batches(lengths, /*batch_tokens*/ 4096, /*max_examples*/ 64, rng);
//   TrainBatch b = make_train_batch(examples, batches[0], o, ids, rng);
//
// The attention mask is models/nn/masks.h's seq2seq_mask.
//
// | option         | default | meaning                                                         |
// |----------------|---------|-----------------------------------------------------------------|
// | max_src_len    | 192     | source tokens kept (the head; UniLM "truncated to the first N") |
// | max_tgt_len    | 64      | target tokens kept (before the final [SEP])                     |
// | mask_prob      | 0.7     | fraction of "S2 [SEP]" positions masked                          |
// | max_pred       | 0       | cap on masked positions per example (0 = no cap)                 |
// | mask_80_10_10  | false   | BERT's 80/10/10 replacement instead of always [MASK]             |
// | noise_prob     | 0       | each unmasked target token of the input is replaced by a random  |
// |                |         | token with this probability (ERNIE-GEN §3.2 noise-aware          |
// |                |         | fine-tuning, ρ_f; its labels are not predicted)                  |
// | target_bos     | false   | ERNIE-GEN only: "[CLS]" opens the target stream ("[CLS] S2 [SEP]", |
// |                |         | the official ERNIE-GEN fine-tuning and decoding layout; models/    |
// |                |         | ernie_gen.h, search_unilm.h)                                     |
// | source_type    | 0       | segment id of "[CLS] S1 [SEP]"                                  |
// | target_type    | 1       | segment id of "S2 [SEP]"                                         |
#include <torch/torch.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "models/tokenizer/wordpiece.h"

namespace unieval::models {

// Token ids of one training pair, without special tokens.
struct Seq2SeqExample {
  std::vector<int64_t> src;
  std::vector<int64_t> tgt;
};

// The special token ids of a vocabulary.
struct SpecialIds {
  int64_t pad = 0;
  int64_t unk = 100;
  int64_t cls = 101;
  int64_t sep = 102;
  int64_t mask = 103;
  int64_t attn = 103;  // ERNIE-GEN's [ATTN] query symbol: [ATTN] if the vocab has it, else [MASK]
  int64_t vocab_size = 30522;  // random replacements are drawn from [first_regular, vocab_size)
  int64_t first_regular = 0;   // first id that is not a special token
};

// The special ids of vocab ([PAD], [UNK], [CLS], [SEP], [MASK]; first_regular just past the
// largest of them). A missing one is an InputError naming vocab_path.
SpecialIds special_ids(const Vocab& vocab, const std::string& vocab_path);

struct Seq2SeqDataOptions {
  int max_src_len = 192;       // source tokens kept
  int max_tgt_len = 64;        // target tokens kept
  double mask_prob = 0.7;      // fraction of target positions masked
  int max_pred = 0;            // cap on masked positions (0 = none)
  bool mask_80_10_10 = false;  // BERT 80/10/10 replacement
  double noise_prob = 0.0;     // unmasked target tokens replaced by random ones (ERNIE-GEN ρ_f)
  bool target_bos = false;     // ERNIE-GEN: [CLS] opens the target stream (official layout)
  int64_t source_type = 0;     // segment id of the source part
  int64_t target_type = 1;     // segment id of the target part
};

// Truncates src/tgt to the options' lengths (heads kept).
Seq2SeqExample truncate(const Seq2SeqExample& ex, const Seq2SeqDataOptions& opts);

// Packed length "[CLS] S1 [SEP] S2 [SEP]" of a (truncated) example.
inline int64_t packed_length(const Seq2SeqExample& ex) {
  return static_cast<int64_t>(ex.src.size() + ex.tgt.size()) + 3;
}

// One padded training batch (CPU tensors).
struct TrainBatch {
  torch::Tensor input_ids;          // [B, T] int64, masked target positions replaced
  torch::Tensor token_type_ids;     // [B, T] int64
  torch::Tensor attention_mask;     // [B, T, T] int64 0/1, seq2seq mask with padding
  torch::Tensor masked_index;       // [N] int64: flat index b*T + t of every masked position
  torch::Tensor labels;             // [N] int64: original token at each masked position
  int64_t tokens = 0;               // non-padding tokens in the batch
  std::vector<int64_t> source_len;  // per row |S1| (positions 1..|S1|; the copy head's source)
};

// Packs and masks examples[idx...] (already truncated). rng draws the masked positions.
TrainBatch make_train_batch(const std::vector<Seq2SeqExample>& examples,
                            const std::vector<size_t>& idx, const Seq2SeqDataOptions& opts,
                            const SpecialIds& ids, std::mt19937_64& rng);

// Batches by token budget: indices in shuffled order (rng), cut greedily so that
// examples × longest packed length ≤ batch_tokens and examples ≤ max_examples (0 = no cap).
// An example longer than the budget gets a batch of its own.
std::vector<std::vector<size_t>> make_batches(const std::vector<int64_t>& lengths,
                                              int64_t batch_tokens, int64_t max_examples,
                                              std::mt19937_64& rng);

// ---- Synthetic task ----------------------------------------------------------------------------
// A seeded toy seq2seq task: sources are random sequences of lower-case pseudo-words; the target
// is the source reversed ("reverse"), sorted ("sort"), or copied ("copy").
struct SyntheticTaskOptions {
  std::string kind = "reverse";  // reverse | sort | copy
  int n_words = 24;              // vocabulary of pseudo-words
  int min_len = 3;               // words per source, inclusive range
  int max_len = 6;
  int n_train = 2000;  // examples per split
  int n_dev = 100;
  int n_test = 200;
  uint64_t seed = 1;  // everything is a function of the seed
};

struct SyntheticTask {
  std::vector<std::string> words;  // the pseudo-words (vocabulary entries)
  std::vector<std::string> train_src, train_tgt, dev_src, dev_tgt, test_src, test_tgt;
  // vocab.txt content: [PAD] [UNK] [CLS] [SEP] [MASK] then the words, one per line.
  std::string vocab_text() const;
};

SyntheticTask make_synthetic_task(const SyntheticTaskOptions& opts);

// Writes DIR/{train,dev,test}.{src,tgt} and DIR/vocab.txt (atomically, creating DIR).
void write_synthetic_task(const SyntheticTask& task, const std::string& dir);

}  // namespace unieval::models
