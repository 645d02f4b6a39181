#pragma once
// Follows HF transformers (Apache-2.0) behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
// The UniLM / BERT transformer in LibTorch, numerically equal to Hugging Face transformers
// v4.30.2 `modeling_bert.py` (BertModel, BertForPreTraining's MLM head, BertForSequenceClassification,
// BertForQuestionAnswering) in fp32 eval mode, with HF's parameter names so that HF checkpoints
// load by name. UniLM (Dong et al. 2019, §2) is this network plus the self-attention mask M that
// selects bidirectional, left-to-right, right-to-left or seq2seq context (models/nn/masks.h).
//
//   using namespace unieval::models;
//   UnilmModel model(BertConfig::from_json_file("ckpt/config.json"), UnilmHeads{.num_labels = 3});
//   model->eval();                                             // dropout off
//   auto m = seq2seq_mask(/*source_lengths=*/{5, 3}, /*target_lengths=*/{4, 2});  // [B,T,T] 0/1
//   BertOutput out = model->forward(ids, types, m);            // ids/types [B,T] int64
//   auto logits = model->mlm_logits(out.last_hidden_state);    // [B,T,V]
//
// Architecture (HF BERT, post-LayerNorm):
//   e = LayerNorm(word[ids] + position[pos] + segment[types]); dropout
//   per layer: a = LayerNorm(x + dropout(Wo · attn(x))); x = LayerNorm(a + dropout(W2 · act(W1 a)))
//   attn: per head softmax(QKᵀ/√d + bias) V with bias = (1 − M)·finfo(dtype).min, as HF's
//   get_extended_attention_mask; a 2-D mask [B,T] is broadcast over queries.
//   pooler = tanh(dense(x[:, 0]));  MLM = LayerNorm(act(dense(x))) · wordᵀ + cls.predictions.bias
//   classifier = Linear(dropout(pooler)) [num_labels];  qa_outputs = Linear(x) [2] → (start, end)
//
// Parameter names (named_parameters(), exactly HF's):
//   bert.embeddings.{word_embeddings,position_embeddings,token_type_embeddings}.weight
//   bert.embeddings.LayerNorm.{weight,bias}
//   bert.encoder.layer.{i}.attention.self.{query,key,value}.{weight,bias}
//   bert.encoder.layer.{i}.attention.output.dense.{weight,bias}, ....attention.output.LayerNorm.{weight,bias}
//   bert.encoder.layer.{i}.intermediate.dense.{weight,bias}
//   bert.encoder.layer.{i}.output.dense.{weight,bias}, bert.encoder.layer.{i}.output.LayerNorm.{weight,bias}
//   bert.pooler.dense.{weight,bias}                                (when heads.pooler)
//   cls.predictions.bias, cls.predictions.transform.dense.{weight,bias},
//   cls.predictions.transform.LayerNorm.{weight,bias}              (when heads.mlm)
//   cls.seq_relationship.{weight,bias}                             (when heads.nsp; HF BertForPreTraining)
//   classifier.{weight,bias}                                       (when heads.num_labels > 0)
//   qa_outputs.{weight,bias}                                       (when heads.span)
//   copy.{query,key,gate}.{weight,bias}         (config unieval_copy, ours; models/nn/copy_head.h)
// Tied weights: the MLM decoder is NOT a parameter. HF's `cls.predictions.decoder.weight` is
// `bert.embeddings.word_embeddings.weight` and `cls.predictions.decoder.bias` is
// `cls.predictions.bias` (a loader maps those checkpoint keys onto them; kTiedAliases below).
// Not modelled (a loader skips them): `bert.embeddings.position_ids` (a buffer in HF 4.30),
// `cls.seq_relationship.*` (the NSP head) unless the model has it (heads.nsp, used by pre-training:
// RunDir weights hold it; a fine-tuning model built without it ignores it).
//
// | UnilmHeads field | default | meaning                                                       |
// |------------------|---------|---------------------------------------------------------------|
// | pooler           | true    | bert.pooler (needed by `classifier` and pooler_output)        |
// | mlm              | true    | cls.predictions (needed by mlm_logits)                        |
// | num_labels       | 0       | > 0 adds `classifier` (sequence classification on pooler)     |
// | span             | false   | adds `qa_outputs` (start/end logits, extractive QA)           |
// | nsp              | false   | adds `cls.seq_relationship` (next-sentence prediction; needs  |
// |                  |         | pooler and mlm)                                               |
//
// Incremental decoding: forward_step() runs only new positions against a KVCache of the keys and
// values of earlier positions (per layer [B, heads, T_cached, head_dim]) and returns the new
// positions' keys/values; the caller appends the ones it wants (append_to_cache) — UniLM decoding
// feeds [previous token, MASK] and keeps only the previous token — and reorders the cache when
// beams are re-ranked (reorder_cache). The result equals forward() over the whole sequence with
// the same mask rows (tested in tests/models/transformer_test.cc).
// A cache can be preallocated (reserve_cache): its per-layer buffers then have room for positions
// to come, forward_step writes the new keys/values straight into the free slots after the cached
// ones and attends to a view of the buffer (no concatenation per layer and step), append_to_cache
// only advances the filled length, and reorder_cache permutes the filled part in place (on CPU only
// the rows whose parent is another row are copied). Same numbers as the concatenating cache: the
// attention reads the same keys through a view with the same row layout.
//
// Numerics: on LibTorch 1.13 CPU fp32 the outputs are bit-identical to the HF v4.30.2 fixtures in
// ../shared/golden/hf_bert (same operations in the same order); with the fused attention of
// LibTorch 2.x expect ~1e-6 differences. Bad inputs (ids outside vocab_size / type_vocab_size /
// max_position_embeddings, mask shapes that do not fit) throw InputError before any kernel runs.
#include <torch/torch.h>

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "models/nn/config.h"
#include "models/nn/copy_head.h"
#include "models/nn/dropout.h"

namespace unieval::models {

// Checkpoint keys that are aliases of a model parameter (tied weights): {checkpoint key, parameter}.
inline const std::array<std::pair<const char*, const char*>, 2> kTiedAliases = {{
    {"cls.predictions.decoder.weight", "bert.embeddings.word_embeddings.weight"},
    {"cls.predictions.decoder.bias", "cls.predictions.bias"},
}};

// Checkpoint keys a loader may skip without reporting them as unexpected (HF buffers / NSP head).
// Prefix match.
inline const std::array<const char*, 2> kIgnoredCheckpointPrefixes = {{
    "bert.embeddings.position_ids",
    "cls.seq_relationship.",
}};

// Which optional parts a UnilmModel has (table in the header comment).
struct UnilmHeads {
  bool pooler = true;      // bert.pooler
  bool mlm = true;         // cls.predictions
  int64_t num_labels = 0;  // > 0: classifier head with this many classes
  bool span = false;       // qa_outputs head
  bool nsp = false;        // cls.seq_relationship head (next-sentence prediction, pre-training)
};

// Converts a 0/1 attention mask (any dtype; 2-D [B,Tk] padding or 3-D [B,Tq,Tk], 1 = may attend)
// to HF's additive bias (1 − m)·finfo(dtype).min, shaped [B,1,1,Tk] or [B,1,Tq,Tk].
torch::Tensor additive_attention_mask(const torch::Tensor& mask, torch::ScalarType dtype);

// ---- modules (HF class names; members named as HF registers them) ----

struct BertEmbeddingsImpl : torch::nn::Module {
  explicit BertEmbeddingsImpl(const BertConfig& cfg);
  // ids, types, positions: [B,T] int64 (types/positions may be undefined: zeros / arange(T)+offset).
  torch::Tensor forward(const torch::Tensor& input_ids, const torch::Tensor& token_type_ids,
                        const torch::Tensor& position_ids, int64_t past_length = 0);
  torch::nn::Embedding word_embeddings{nullptr}, position_embeddings{nullptr},
      token_type_embeddings{nullptr};
  torch::nn::LayerNorm LayerNorm{nullptr};
  Dropout dropout{nullptr};
};
TORCH_MODULE(BertEmbeddings);

struct BertSelfAttentionImpl : torch::nn::Module {
  explicit BertSelfAttentionImpl(const BertConfig& cfg);
  // Splits [B,T,H] into heads: [B,heads,T,head_dim].
  torch::Tensor split_heads(const torch::Tensor& x) const;
  torch::nn::Linear query{nullptr}, key{nullptr}, value{nullptr};
  int64_t num_heads = 0, head_dim = 0;
  double dropout_p = 0.0;
};
TORCH_MODULE(BertSelfAttention);

// dense + dropout + residual + LayerNorm (HF BertSelfOutput and BertOutput have the same shape).
struct BertResidualOutputImpl : torch::nn::Module {
  BertResidualOutputImpl(const BertConfig& cfg, int64_t in_features);
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& residual);
  torch::nn::Linear dense{nullptr};
  torch::nn::LayerNorm LayerNorm{nullptr};
  Dropout dropout{nullptr};
};
TORCH_MODULE(BertResidualOutput);

struct BertAttentionImpl : torch::nn::Module {
  explicit BertAttentionImpl(const BertConfig& cfg);
  BertSelfAttention self_attn{nullptr};  // registered as "self"
  BertResidualOutput output{nullptr};
};
TORCH_MODULE(BertAttention);

struct BertIntermediateImpl : torch::nn::Module {
  explicit BertIntermediateImpl(const BertConfig& cfg);
  torch::Tensor forward(const torch::Tensor& x);
  torch::nn::Linear dense{nullptr};
  Activation act = Activation::kGelu;
};
TORCH_MODULE(BertIntermediate);

struct BertLayerImpl : torch::nn::Module {
  explicit BertLayerImpl(const BertConfig& cfg);
  // x: [B,Tn,H] new positions; bias: additive mask [B,1|heads,Tn,Tk] (Tk = cached + Tn) or
  // undefined; past_k/past_v: [B,heads,Tc,d] or undefined. Writes the new positions' K/V.
  // write_at >= 0: past_k/past_v are preallocated buffers [B,heads,capacity,d] whose first
  // write_at positions are cached; the new K/V are written at [write_at, write_at + Tn).
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& bias,
                        const torch::Tensor& past_k, const torch::Tensor& past_v,
                        torch::Tensor* new_k = nullptr, torch::Tensor* new_v = nullptr,
                        int64_t write_at = -1);
  BertAttention attention{nullptr};
  BertIntermediate intermediate{nullptr};
  BertResidualOutput output{nullptr};
};
TORCH_MODULE(BertLayer);

struct BertEncoderImpl : torch::nn::Module {
  explicit BertEncoderImpl(const BertConfig& cfg);
  torch::nn::ModuleList layer{nullptr};
  std::vector<BertLayer> layers;  // typed view of `layer`
};
TORCH_MODULE(BertEncoder);

struct BertPoolerImpl : torch::nn::Module {
  explicit BertPoolerImpl(const BertConfig& cfg);
  // tanh(dense(hidden[:, 0])); with config unieval_pooling "mean" ("max"), tanh(dense(the mean
  // (per-feature maximum) of the positions whose 2-D [B,T] `mask` is non-zero)) (all positions
  // without such a mask).
  torch::Tensor forward(const torch::Tensor& hidden, const torch::Tensor& mask = {});
  torch::nn::Linear dense{nullptr};
  bool mean = false;
  bool max = false;
};
TORCH_MODULE(BertPooler);

struct BertModelImpl : torch::nn::Module {
  BertModelImpl(const BertConfig& cfg, bool add_pooler);
  BertEmbeddings embeddings{nullptr};
  BertEncoder encoder{nullptr};
  BertPooler pooler{nullptr};  // null when add_pooler is false
};
TORCH_MODULE(BertModel);

struct BertPredictionHeadTransformImpl : torch::nn::Module {
  explicit BertPredictionHeadTransformImpl(const BertConfig& cfg);
  torch::Tensor forward(const torch::Tensor& x);  // LayerNorm(act(dense(x)))
  torch::nn::Linear dense{nullptr};
  torch::nn::LayerNorm LayerNorm{nullptr};
  Activation act = Activation::kGelu;
};
TORCH_MODULE(BertPredictionHeadTransform);

struct BertLMPredictionHeadImpl : torch::nn::Module {
  explicit BertLMPredictionHeadImpl(const BertConfig& cfg);
  // transform(x) · decoder_weightᵀ + bias; decoder_weight is the tied word-embedding matrix.
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& decoder_weight);
  BertPredictionHeadTransform transform{nullptr};
  torch::Tensor bias;  // [V], "cls.predictions.bias" (= HF decoder.bias)
};
TORCH_MODULE(BertLMPredictionHead);

// HF BertOnlyMLMHead, or BertPreTrainingHeads with the NSP head (add_nsp).
struct BertOnlyMLMHeadImpl : torch::nn::Module {
  explicit BertOnlyMLMHeadImpl(const BertConfig& cfg, bool add_nsp = false);
  BertLMPredictionHead predictions{nullptr};
  torch::nn::Linear seq_relationship{nullptr};  // null without add_nsp
};
TORCH_MODULE(BertOnlyMLMHead);

// ---- the model ----

struct BertOutput {
  torch::Tensor last_hidden_state;           // [B,T,H]
  torch::Tensor pooler_output;               // [B,H] (undefined without a pooler)
  std::vector<torch::Tensor> hidden_states;  // if requested: embeddings, then each layer [B,T,H]
};

// Keys and values of the cached positions, one tensor per layer, [B, heads, T_cached, head_dim].
// Empty vectors = nothing cached. Preallocated (filled >= 0, see reserve_cache): each tensor is a
// buffer [B, heads, capacity, head_dim] of which the first `filled` positions are cached.
struct KVCache {
  std::vector<torch::Tensor> k, v;
  int64_t filled = -1;  // preallocated: cached positions; -1: k/v hold exactly the cached ones
  int64_t length() const { return k.empty() ? 0 : filled >= 0 ? filled : k.front().size(2); }
  int64_t capacity() const { return k.empty() ? 0 : k.front().size(2); }
  bool empty() const { return length() == 0; }
};

struct StepOutput {
  torch::Tensor hidden;                     // [B,Tn,H] last layer output of the new positions
  std::vector<torch::Tensor> new_k, new_v;  // per layer [B,heads,Tn,head_dim]
};

class UnilmModelImpl : public torch::nn::Module {
 public:
  explicit UnilmModelImpl(const BertConfig& cfg, const UnilmHeads& heads = {});

  // input_ids [B,T] int64; token_type_ids [B,T] (undefined = zeros); attention_mask 0/1 [B,T]
  // or [B,T,T] (undefined = all ones); position_ids [B,T] (undefined = arange(T) per row, as HF).
  BertOutput forward(const torch::Tensor& input_ids, const torch::Tensor& token_type_ids = {},
                     const torch::Tensor& attention_mask = {},
                     const torch::Tensor& position_ids = {}, bool output_hidden_states = false);

  // MLM prediction scores [B,T,V] from hidden [B,T,H] (or [N,H] for gathered positions).
  torch::Tensor mlm_logits(const torch::Tensor& hidden);
  // Next-token log-probabilities [N,V] (float) at query states hidden [B,Tq,H], rows gathered by
  // the flat index [N] (b*Tq + t; undefined: all B*Tq rows). Without the copy head (config
  // unieval_copy false) log_softmax(mlm_logits); with it the mixture of models/nn/copy_head.h over
  // `source` (B rows), which must then be given.
  torch::Tensor next_token_log_probs(const torch::Tensor& hidden, const torch::Tensor& index,
                                     const CopySource* source);
  // Next-sentence logits [B,2] from pooler_output (index 0 = "B follows A", HF's convention).
  torch::Tensor nsp_logits(const torch::Tensor& pooled);
  // Classification logits [B,num_labels] from pooler_output (dropout as HF, train() only).
  torch::Tensor classify(const torch::Tensor& pooled);
  // Span logits from hidden [B,T,H]: {start [B,T], end [B,T]}.
  std::pair<torch::Tensor, torch::Tensor> span_logits(const torch::Tensor& hidden);

  // Runs the Tn new positions against the cache. ids/types/positions [B,Tn] int64 (types
  // undefined = zeros, positions undefined = arange(Tc, Tc+Tn)); mask 0/1 [B,Tn,Tc+Tn] (columns:
  // cached positions first, then the new ones; undefined = all ones). `past` may be empty. A
  // preallocated `past` needs room for the Tn positions (reserve_cache(past, length + Tn)): their
  // keys/values are written into its free slots, which leaves its cached positions unchanged.
  StepOutput forward_step(const torch::Tensor& input_ids, const torch::Tensor& token_type_ids,
                          const torch::Tensor& position_ids, const torch::Tensor& mask,
                          const KVCache& past);

  const BertConfig& config() const { return cfg_; }
  const UnilmHeads& heads() const { return heads_; }

  // HF's _init_weights on every parameter: Linear/Embedding weights N(0, initializer_range²),
  // biases 0 (cls.predictions.bias included), LayerNorm 1/0, the padding_idx row 0.
  // Uses torch's global generator (seed it with torch::manual_seed).
  void init_weights();
  // The same on the task heads only (classifier, qa_outputs): new heads on a loaded checkpoint.
  void init_task_heads();

  BertModel bert{nullptr};
  BertOnlyMLMHead cls{nullptr};           // null without heads.mlm
  torch::nn::Linear classifier{nullptr};  // null unless heads.num_labels > 0
  Dropout classifier_dropout{nullptr};
  torch::nn::Linear qa_outputs{nullptr};  // null unless heads.span
  CopyHead copy{nullptr};                 // null unless config unieval_copy (and heads.mlm)

 private:
  // Embedding output → encoder; fills new K/V per layer when asked.
  torch::Tensor run_layers(torch::Tensor x, const torch::Tensor& bias, const KVCache* past,
                           std::vector<torch::Tensor>* new_k, std::vector<torch::Tensor>* new_v,
                           std::vector<torch::Tensor>* hidden_states);

  BertConfig cfg_;
  UnilmHeads heads_;
};
TORCH_MODULE(UnilmModel);

// Appends to `cache` the new keys/values of the given positions (indices into the Tn new
// positions of `step`, e.g. {0} to keep the previous token but not the [MASK]). The first call
// on an empty cache initialises it.
void append_to_cache(KVCache& cache, const StepOutput& step, const std::vector<int64_t>& positions);
// Reorders the batch dimension (beam search): cache[b] := cache[beam_index[b]] (int64 indices).
void reorder_cache(KVCache& cache, const torch::Tensor& beam_index);
// Makes `cache` preallocated with room for at least `positions` positions (cached ones included):
// a no-op when it already has the room, else new buffers of max(positions, 2 x the old capacity,
// length + 64) positions with the cached part copied (geometric growth: O(1) amortised copies).
void reserve_cache(KVCache& cache, int64_t positions);

}  // namespace unieval::models
