#pragma once
// The UniLM self-attention masks M (Dong et al. 2019, "Unified Language Model Pre-training for
// Natural Language Understanding and Generation", §2.2–2.3, Fig. 1), batched, with padding.
//
// M[b][i][j] = 1 when query position i of example b may attend to key position j, 0 otherwise
// (the convention of HF's 3-D `attention_mask`; UnilmModel turns it into the additive
// (1 − M)·finfo.min bias of the paper's Eq. 2, where 0 ↦ −∞).
//
//   // "[SOS] t1 t2 [EOS] t3 t4 t5 [EOS]": source of 4 tokens, target of 4
//   auto m = build_mask(MaskKind::kSeq2Seq, /*lengths=*/{8}, /*max_len=*/8, /*source_lengths=*/{4});
//   model->forward(ids, types, m);
//
// | kind           | real query i (i < len) may attend to real key j (j < len) when        |
// |----------------|-----------------------------------------------------------------------|
// | kBidirectional | always (BERT)                                                          |
// | kLeftToRight   | j ≤ i (GPT-style; the paper's triangular M)                            |
// | kRightToLeft   | j ≥ i                                                                  |
// | kSeq2Seq       | j < src (everyone sees the whole source), or i ≥ src and src ≤ j ≤ i    |
// |                | (the target sees its own left context); a source query never sees the  |
// |                | target                                                                 |
// Keys j ≥ len (padding) are never visible. A padding query row (i ≥ len) sees every real key —
// what a 2-D padding mask gives, and the convention of the HF parity fixtures
// (../shared/golden/hf_bert/README.md); it only affects outputs at pad positions and keeps every
// row non-empty.
//
// | argument       | meaning                                                          |
// |----------------|------------------------------------------------------------------|
// | lengths        | real tokens per example (source + target for kSeq2Seq)           |
// | max_len        | T of the batch; 0 = max(lengths)                                 |
// | source_lengths | kSeq2Seq only: [SOS] source [EOS] tokens per example              |
// | dtype          | of the returned [B,T,T] 0/1 tensor (default int64, like HF's)    |
// Bad lengths (negative, > max_len, source > length, sizes differ) throw InputError.
#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

namespace unieval::models {

enum class MaskKind { kBidirectional, kLeftToRight, kRightToLeft, kSeq2Seq };

// "bidirectional"|"bi" , "left-to-right"|"l2r", "right-to-left"|"r2l", "seq2seq"|"s2s".
MaskKind parse_mask_kind(const std::string& name);
std::string to_string(MaskKind kind);

// [B,T,T] 0/1 mask (table above).
torch::Tensor build_mask(MaskKind kind, const std::vector<int64_t>& lengths, int64_t max_len = 0,
                         const std::vector<int64_t>& source_lengths = {},
                         torch::ScalarType dtype = torch::kLong);

// kSeq2Seq from separate source and target lengths (lengths = source + target).
torch::Tensor seq2seq_mask(const std::vector<int64_t>& source_lengths,
                           const std::vector<int64_t>& target_lengths, int64_t max_len = 0,
                           torch::ScalarType dtype = torch::kLong);

// [B,T] 0/1 padding mask (1 on the first lengths[b] positions): HF's 2-D attention_mask.
torch::Tensor padding_mask(const std::vector<int64_t>& lengths, int64_t max_len = 0,
                           torch::ScalarType dtype = torch::kLong);

}  // namespace unieval::models
