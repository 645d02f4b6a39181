#pragma once
// A copy (pointer) distribution for the UniLM / ERNIE-GEN next-token prediction: the
// pointer-generator mixture of See et al. (2017, "Get To The Point", §2.2), on the transformer's
// last-layer states instead of an RNN's. unieval's own option (config "unieval_copy": true); no
// UniLM or ERNIE-GEN checkpoint has it, and without it nothing here runs.
//
// For a query state h (the [MASK] / [ATTN] position being predicted) and the source states s_j
// of the copyable source positions j (the words of S, not [CLS] / [SEP] / padding):
//   a_j  = softmax_j((W_q h + b_q) · (W_k s_j + b_k) / √H)          attention over the source
//   c    = Σ_j a_j s_j                                                its context
//   g    = σ(w_g · [h; c] + b_g)                                      the share of the vocabulary
//   P(w) = g · softmax(mlm_logits(h))_w + (1 − g) · Σ_{j: id_j = w} a_j
// so a source word out of the model's favour (a name split into pieces, a rare number) can still
// be produced by pointing at it. P sums to 1 over the vocabulary; log P is clamped at log 1e-30.
// A row whose source has no copyable position gets g = 1 (the vocabulary distribution alone).
// Parameters (registered under "copy." in UnilmModel): query.{weight,bias} [H,H], key.{weight,bias}
// [H,H], gate.{weight,bias} [1,2H]; initialised as every Linear (N(0, initializer_range²), bias 0:
// g starts at 0.5).
//
//   CopySource src = packed_copy_source(out.last_hidden_state, input_ids, source_len);
//   torch::Tensor logp = model->next_token_log_probs(out.last_hidden_state, masked_index, &src);
#include <torch/torch.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "models/nn/config.h"

namespace unieval::models {

// The copyable source of a batch of rows (one row per query row).
struct CopySource {
  torch::Tensor hidden;  // [B,S,H] last-layer states of the source positions
  torch::Tensor ids;     // [B,S] int64 token ids at those positions
  torch::Tensor valid;   // [B,S] bool: positions that may be copied
  // Optional [B,S,H] float: the key projection of hidden (CopyHeadImpl::with_keys). Decoding
  // projects each source once instead of at every step; undefined = projected in forward.
  torch::Tensor keys;
  // The rows `rows` ([R] int64 indices into B), e.g. each beam's example.
  CopySource select(const torch::Tensor& rows) const;
};

// The source of packed rows "[CLS] S [SEP] ...": positions 1..source_len[b] of hidden [B,T,H] and
// ids [B,T] (source_len: |S| of each row, specials excluded). S = max(source_len) + 1.
CopySource packed_copy_source(const torch::Tensor& hidden, const torch::Tensor& ids,
                              const std::vector<int64_t>& source_len);

struct CopyHeadImpl : torch::nn::Module {
  explicit CopyHeadImpl(const BertConfig& cfg);
  // Query states q [B,Tq,H] against src (B rows) → {a [B,Tq,S] float (0 on positions that may not
  // be copied), gate logit z [B,Tq] float (g = σ(z); +inf where the row has nothing to copy)}.
  std::pair<torch::Tensor, torch::Tensor> forward(const torch::Tensor& q, const CopySource& src);
  // src with its keys projected (a decoder's sources, read at every step). Same results.
  CopySource with_keys(CopySource src);
  torch::nn::Linear query{nullptr}, key{nullptr}, gate{nullptr};
};
TORCH_MODULE(CopyHead);

// log(σ(z)·softmax(logits) + (1 − σ(z))·Σ_{j: ids_j = w} attn_j), clamped at log 1e-30, per row:
// logits [N,V], attn [N,S], gate_logit [N], ids [N,S] int64 (each < V). Float.
torch::Tensor mix_copy_log_probs(const torch::Tensor& logits, const torch::Tensor& attn,
                                 const torch::Tensor& gate_logit, const torch::Tensor& ids);

}  // namespace unieval::models
