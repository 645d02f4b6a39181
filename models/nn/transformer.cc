// Follows HF transformers (Apache-2.0) behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
#include "models/nn/transformer.h"

#include <algorithm>
#include <limits>
#include <string>

#include "core/error.h"
#include "models/nn/attention.h"
#include "models/nn/gemm.h"

namespace unieval::models {

namespace {

torch::Tensor activate(const torch::Tensor& x, Activation act) {
  switch (act) {
    case Activation::kGelu:
      return torch::gelu(x);  // erf form (HF ACT2FN["gelu"])
    case Activation::kGeluTanh:
      return torch::gelu(x, "tanh");
    case Activation::kRelu:
      return torch::relu(x);
  }
  return torch::gelu(x);
}

std::string shape_str(const torch::Tensor& t) {
  std::string s = "[";
  for (int64_t i = 0; i < t.dim(); ++i) s += (i ? "," : "") + std::to_string(t.size(i));
  return s + "]";
}

// Ids must be integers in [0, limit): an out-of-range id is a user error (wrong vocab, wrong
// segment scheme for the checkpoint), reported by name instead of LibTorch's index error.
torch::Tensor checked_ids(const torch::Tensor& ids, int64_t limit, const char* what,
                          const char* field) {
  if (ids.is_floating_point() || ids.is_complex()) {
    throw InputError(std::string(what) + " must be integer ids");
  }
  auto t = ids.scalar_type() == torch::kLong ? ids : ids.to(torch::kLong);
  if (t.numel() > 0) {
    // One device→host copy for both bounds (a CUDA sync each, so not two).
    const auto bounds = torch::stack({t.min(), t.max()}).cpu();
    const int64_t lo = bounds[0].item<int64_t>(), hi = bounds[1].item<int64_t>();
    if (lo < 0 || hi >= limit) {
      throw InputError(std::string(what) + " out of range: found " +
                       std::to_string(lo < 0 ? lo : hi) + ", the checkpoint's " + field + " is " +
                       std::to_string(limit));
    }
  }
  return t;
}

}  // namespace

torch::Tensor additive_attention_mask(const torch::Tensor& mask, torch::ScalarType dtype) {
  torch::Tensor ext;
  if (mask.dim() == 2) {
    ext = mask.unsqueeze(1).unsqueeze(1);  // [B,1,1,Tk]
  } else if (mask.dim() == 3) {
    ext = mask.unsqueeze(1);  // [B,1,Tq,Tk]
  } else {
    throw InputError("attention_mask must be 2-D [batch, key] or 3-D [batch, query, key], got " +
                     shape_str(mask));
  }
  // HF ModuleUtilsMixin.get_extended_attention_mask (v4.30.2): (1 - m) * finfo(dtype).min.
  ext = ext.to(dtype);
  const double lowest = dtype == torch::kHalf       ? -65504.0
                        : dtype == torch::kBFloat16 ? -3.3895313892515355e38
                        : dtype == torch::kDouble   ? std::numeric_limits<double>::lowest()
                                                    : std::numeric_limits<float>::lowest();
  return (1.0 - ext) * lowest;
}

// ---------------------------------------------------------------- embeddings

BertEmbeddingsImpl::BertEmbeddingsImpl(const BertConfig& cfg) {
  word_embeddings = register_module(
      "word_embeddings",
      torch::nn::Embedding(torch::nn::EmbeddingOptions(cfg.vocab_size, cfg.hidden_size)
                               .padding_idx(cfg.pad_token_id)));
  position_embeddings = register_module(
      "position_embeddings", torch::nn::Embedding(cfg.max_position_embeddings, cfg.hidden_size));
  token_type_embeddings = register_module(
      "token_type_embeddings", torch::nn::Embedding(cfg.type_vocab_size, cfg.hidden_size));
  LayerNorm = register_module(
      "LayerNorm",
      torch::nn::LayerNorm(torch::nn::LayerNormOptions({cfg.hidden_size}).eps(cfg.layer_norm_eps)));
  dropout = register_module("dropout", Dropout(cfg.hidden_dropout_prob));
}

torch::Tensor BertEmbeddingsImpl::forward(const torch::Tensor& input_ids,
                                          const torch::Tensor& token_type_ids,
                                          const torch::Tensor& position_ids, int64_t past_length) {
  const int64_t vocab = word_embeddings->weight.size(0);
  const int64_t max_pos = position_embeddings->weight.size(0);
  const int64_t types = token_type_embeddings->weight.size(0);
  const int64_t T = input_ids.size(1);
  auto ids = checked_ids(input_ids, vocab, "input_ids", "vocab_size");
  torch::Tensor pos;
  if (position_ids.defined()) {
    if (position_ids.sizes() != input_ids.sizes() &&
        !(position_ids.dim() == 2 && position_ids.size(0) == 1 && position_ids.size(1) == T)) {
      throw InputError("position_ids shape " + shape_str(position_ids) +
                       " does not match input_ids " + shape_str(input_ids));
    }
    pos = checked_ids(position_ids, max_pos, "position_ids", "max_position_embeddings");
  } else {
    if (past_length + T > max_pos) {
      throw InputError("sequence of " + std::to_string(past_length + T) +
                       " positions is longer than max_position_embeddings " +
                       std::to_string(max_pos));
    }
    pos = torch::arange(past_length, past_length + T,
                        torch::TensorOptions().dtype(torch::kLong).device(ids.device()))
              .unsqueeze(0);
  }
  torch::Tensor tt;
  if (token_type_ids.defined()) {
    if (token_type_ids.sizes() != input_ids.sizes()) {
      throw InputError("token_type_ids shape " + shape_str(token_type_ids) +
                       " does not match input_ids " + shape_str(input_ids));
    }
    tt = checked_ids(token_type_ids, types, "token_type_ids", "type_vocab_size");
  } else {
    tt = torch::zeros_like(ids);
  }
  // HF BertEmbeddings.forward: (word + token_type) + position, LayerNorm, dropout.
  auto e = word_embeddings(ids) + token_type_embeddings(tt);
  e = e + position_embeddings(pos);
  return dropout(LayerNorm(e));
}

// ---------------------------------------------------------------- attention block

BertSelfAttentionImpl::BertSelfAttentionImpl(const BertConfig& cfg)
    : num_heads(cfg.num_attention_heads),
      head_dim(cfg.head_dim()),
      dropout_p(cfg.attention_probs_dropout_prob) {
  query = register_module("query", torch::nn::Linear(cfg.hidden_size, cfg.hidden_size));
  key = register_module("key", torch::nn::Linear(cfg.hidden_size, cfg.hidden_size));
  value = register_module("value", torch::nn::Linear(cfg.hidden_size, cfg.hidden_size));
}

torch::Tensor BertSelfAttentionImpl::split_heads(const torch::Tensor& x) const {
  return x.view({x.size(0), x.size(1), num_heads, head_dim}).permute({0, 2, 1, 3});
}

BertResidualOutputImpl::BertResidualOutputImpl(const BertConfig& cfg, int64_t in_features) {
  dense = register_module("dense", torch::nn::Linear(in_features, cfg.hidden_size));
  LayerNorm = register_module(
      "LayerNorm",
      torch::nn::LayerNorm(torch::nn::LayerNormOptions({cfg.hidden_size}).eps(cfg.layer_norm_eps)));
  dropout = register_module("dropout", Dropout(cfg.hidden_dropout_prob));
}

torch::Tensor BertResidualOutputImpl::forward(const torch::Tensor& x,
                                              const torch::Tensor& residual) {
  return LayerNorm(dropout(linear(dense, x)) + residual);
}

BertAttentionImpl::BertAttentionImpl(const BertConfig& cfg) {
  self_attn = register_module("self", BertSelfAttention(cfg));
  output = register_module("output", BertResidualOutput(cfg, cfg.hidden_size));
}

BertIntermediateImpl::BertIntermediateImpl(const BertConfig& cfg) : act(cfg.activation()) {
  dense = register_module("dense", torch::nn::Linear(cfg.hidden_size, cfg.intermediate_size));
}

torch::Tensor BertIntermediateImpl::forward(const torch::Tensor& x) {
  return activate(linear(dense, x), act);
}

BertLayerImpl::BertLayerImpl(const BertConfig& cfg) {
  attention = register_module("attention", BertAttention(cfg));
  intermediate = register_module("intermediate", BertIntermediate(cfg));
  output = register_module("output", BertResidualOutput(cfg, cfg.intermediate_size));
}

torch::Tensor BertLayerImpl::forward(const torch::Tensor& x, const torch::Tensor& bias,
                                     const torch::Tensor& past_k, const torch::Tensor& past_v,
                                     torch::Tensor* new_k, torch::Tensor* new_v, int64_t write_at) {
  auto& sa = attention->self_attn;
  auto q = sa->split_heads(linear(sa->query, x));
  auto k = sa->split_heads(linear(sa->key, x));
  auto v = sa->split_heads(linear(sa->value, x));
  if (new_k) *new_k = k;
  if (new_v) *new_v = v;
  if (write_at >= 0) {
    // Preallocated cache: the new positions go into the buffer's free slots, the attention reads
    // a view of the filled part plus them (no concatenation).
    const int64_t tn = k.size(2);
    if (past_k.size(2) < write_at + tn) {
      throw std::out_of_range("KV cache buffer of " + std::to_string(past_k.size(2)) +
                              " positions has no room for " + std::to_string(tn) + " more after " +
                              std::to_string(write_at));
    }
    past_k.narrow(2, write_at, tn).copy_(k);
    past_v.narrow(2, write_at, tn).copy_(v);
    k = past_k.narrow(2, 0, write_at + tn);
    v = past_v.narrow(2, 0, write_at + tn);
  } else if (past_k.defined() && past_k.size(2) > 0) {
    k = torch::cat({past_k, k}, 2);
    v = torch::cat({past_v, v}, 2);
  }
  auto ctx = models::attention(q, k, v, bias, sa->dropout_p, is_training());
  ctx = ctx.permute({0, 2, 1, 3}).contiguous().view({x.size(0), x.size(1), x.size(2)});
  auto a = attention->output(ctx, x);
  return output(intermediate(a), a);
}

BertEncoderImpl::BertEncoderImpl(const BertConfig& cfg) {
  layer = register_module("layer", torch::nn::ModuleList());
  for (int64_t i = 0; i < cfg.num_hidden_layers; ++i) {
    layers.emplace_back(cfg);
    layer->push_back(layers.back());
  }
}

BertPoolerImpl::BertPoolerImpl(const BertConfig& cfg)
    : mean(cfg.pooling == "mean"), max(cfg.pooling == "max") {
  dense = register_module("dense", torch::nn::Linear(cfg.hidden_size, cfg.hidden_size));
}

torch::Tensor BertPoolerImpl::forward(const torch::Tensor& hidden, const torch::Tensor& mask) {
  if (!mean && !max) return torch::tanh(linear(dense, hidden.select(1, 0)));
  const bool masked = mask.defined() && mask.dim() == 2;
  if (max) {
    if (!masked) return torch::tanh(linear(dense, std::get<0>(hidden.max(1))));
    const auto keep = mask.to(hidden.device()).ne(0).unsqueeze(-1);  // [B,T,1]
    // Masked positions read as the lowest value; a row without any position reads 0.
    const auto lowest = std::numeric_limits<float>::lowest();
    auto pooled = std::get<0>(hidden.masked_fill(keep.logical_not(), lowest).max(1));
    pooled = pooled.masked_fill(keep.any(1).logical_not(), 0.0);
    return torch::tanh(linear(dense, pooled));
  }
  if (!masked) return torch::tanh(linear(dense, hidden.mean(1)));
  const auto w = mask.to(hidden.device()).ne(0).to(hidden.scalar_type()).unsqueeze(-1);  // [B,T,1]
  return torch::tanh(linear(dense, (hidden * w).sum(1) / w.sum(1).clamp_min(1)));
}

BertModelImpl::BertModelImpl(const BertConfig& cfg, bool add_pooler) {
  embeddings = register_module("embeddings", BertEmbeddings(cfg));
  encoder = register_module("encoder", BertEncoder(cfg));
  if (add_pooler) pooler = register_module("pooler", BertPooler(cfg));
}

// ---------------------------------------------------------------- heads

BertPredictionHeadTransformImpl::BertPredictionHeadTransformImpl(const BertConfig& cfg)
    : act(cfg.activation()) {
  dense = register_module("dense", torch::nn::Linear(cfg.hidden_size, cfg.hidden_size));
  LayerNorm = register_module(
      "LayerNorm",
      torch::nn::LayerNorm(torch::nn::LayerNormOptions({cfg.hidden_size}).eps(cfg.layer_norm_eps)));
}

torch::Tensor BertPredictionHeadTransformImpl::forward(const torch::Tensor& x) {
  return LayerNorm(activate(linear(dense, x), act));
}

BertLMPredictionHeadImpl::BertLMPredictionHeadImpl(const BertConfig& cfg) {
  transform = register_module("transform", BertPredictionHeadTransform(cfg));
  bias = register_parameter("bias", torch::zeros({cfg.vocab_size}));
}

torch::Tensor BertLMPredictionHeadImpl::forward(const torch::Tensor& x,
                                                const torch::Tensor& decoder_weight) {
  return linear(transform(x), decoder_weight, bias);
}

BertOnlyMLMHeadImpl::BertOnlyMLMHeadImpl(const BertConfig& cfg, bool add_nsp) {
  predictions = register_module("predictions", BertLMPredictionHead(cfg));
  if (add_nsp)
    seq_relationship = register_module("seq_relationship", torch::nn::Linear(cfg.hidden_size, 2));
}

// ---------------------------------------------------------------- model

UnilmModelImpl::UnilmModelImpl(const BertConfig& cfg, const UnilmHeads& heads)
    : cfg_(cfg), heads_(heads) {
  cfg_.validate();
  bert = register_module("bert", BertModel(cfg_, heads_.pooler));
  if (heads_.nsp && (!heads_.mlm || !heads_.pooler))
    throw InputError(
        "the next-sentence head needs the pooler and the MLM head (heads.pooler, heads.mlm)");
  if (heads_.mlm) cls = register_module("cls", BertOnlyMLMHead(cfg_, heads_.nsp));
  if (heads_.num_labels > 0) {
    if (!heads_.pooler) throw InputError("a classification head needs the pooler (heads.pooler)");
    classifier_dropout = register_module(
        "classifier_dropout", Dropout(cfg_.classifier_dropout.value_or(cfg_.hidden_dropout_prob)));
    classifier =
        register_module("classifier", torch::nn::Linear(cfg_.hidden_size, heads_.num_labels));
  } else if (heads_.num_labels < 0) {
    throw InputError("num_labels must be >= 0, got " + std::to_string(heads_.num_labels));
  }
  if (heads_.span)
    qa_outputs = register_module("qa_outputs", torch::nn::Linear(cfg_.hidden_size, 2));
  init_weights();
  // Built and drawn after everything else (and last in modules(), so init_weights() draws it last
  // too): a model without it has the same initial weights as before it existed.
  if (cfg_.copy && heads_.mlm) {
    copy = register_module("copy", CopyHead(cfg_));
    torch::NoGradGuard no_grad;
    for (auto& m : copy->modules(/*include_self=*/false)) {
      if (auto* lin = m->as<torch::nn::Linear>()) {
        lin->weight.normal_(0.0, cfg_.initializer_range);
        lin->bias.zero_();
      }
    }
  }
}

torch::Tensor UnilmModelImpl::run_layers(torch::Tensor x, const torch::Tensor& bias,
                                         const KVCache* past, std::vector<torch::Tensor>* new_k,
                                         std::vector<torch::Tensor>* new_v,
                                         std::vector<torch::Tensor>* hidden_states) {
  auto& layers = bert->encoder->layers;
  if (new_k) new_k->assign(layers.size(), {});
  if (new_v) new_v->assign(layers.size(), {});
  if (hidden_states) hidden_states->push_back(x);
  for (size_t l = 0; l < layers.size(); ++l) {
    torch::Tensor pk, pv;
    int64_t write_at = -1;
    if (past && !past->k.empty()) {
      pk = past->k.at(l);
      pv = past->v.at(l);
      write_at = past->filled;
    }
    x = layers[l]->forward(x, bias, pk, pv, new_k ? &(*new_k)[l] : nullptr,
                           new_v ? &(*new_v)[l] : nullptr, write_at);
    if (hidden_states) hidden_states->push_back(x);
  }
  return x;
}

BertOutput UnilmModelImpl::forward(const torch::Tensor& input_ids,
                                   const torch::Tensor& token_type_ids,
                                   const torch::Tensor& attention_mask,
                                   const torch::Tensor& position_ids, bool output_hidden_states) {
  if (input_ids.dim() != 2) {
    throw InputError("input_ids must be 2-D [batch, seq], got " + shape_str(input_ids));
  }
  const int64_t B = input_ids.size(0), T = input_ids.size(1);
  torch::Tensor bias;
  if (attention_mask.defined()) {
    const bool ok2 =
        attention_mask.dim() == 2 && attention_mask.size(0) == B && attention_mask.size(1) == T;
    const bool ok3 = attention_mask.dim() == 3 && attention_mask.size(0) == B &&
                     attention_mask.size(1) == T && attention_mask.size(2) == T;
    if (!ok2 && !ok3) {
      throw InputError("attention_mask shape " + shape_str(attention_mask) +
                       " does not fit input_ids " + shape_str(input_ids) +
                       " (expected [B,T] or [B,T,T])");
    }
    bias = additive_attention_mask(attention_mask.to(input_ids.device()),
                                   bert->embeddings->word_embeddings->weight.scalar_type());
  }
  BertOutput out;
  auto x = bert->embeddings->forward(input_ids, token_type_ids, position_ids, 0);
  out.last_hidden_state = run_layers(x, bias, nullptr, nullptr, nullptr,
                                     output_hidden_states ? &out.hidden_states : nullptr);
  if (bert->pooler)
    out.pooler_output = bert->pooler->forward(out.last_hidden_state, attention_mask);
  return out;
}

torch::Tensor UnilmModelImpl::mlm_logits(const torch::Tensor& hidden) {
  if (!cls) throw InputError("this model was built without the MLM head (heads.mlm = false)");
  return cls->predictions->forward(hidden, bert->embeddings->word_embeddings->weight);
}

torch::Tensor UnilmModelImpl::next_token_log_probs(const torch::Tensor& hidden,
                                                   const torch::Tensor& index,
                                                   const CopySource* source) {
  const int64_t H = hidden.size(-1);
  const torch::Tensor flat = hidden.reshape({-1, H});
  const torch::Tensor rows = index.defined() ? flat.index_select(0, index) : flat;
  const torch::Tensor logits = mlm_logits(rows);
  if (!copy) return torch::log_softmax(logits.to(torch::kFloat), -1);
  if (!source)
    throw InputError("this model has a copy head (config unieval_copy): give the copy source");
  if (hidden.dim() != 3 || source->hidden.size(0) != hidden.size(0))
    throw InputError("next_token_log_probs: query states [B,Tq,H] and a copy source of B rows");
  auto [attn, z] = copy->forward(hidden, *source);  // [B,Tq,S], [B,Tq]
  const int64_t B = hidden.size(0), Tq = hidden.size(1), S = attn.size(-1);
  torch::Tensor a = attn.reshape({B * Tq, S});
  torch::Tensor g = z.reshape({B * Tq});
  torch::Tensor ids = source->ids.unsqueeze(1).expand({B, Tq, S}).reshape({B * Tq, S});
  if (index.defined()) {
    a = a.index_select(0, index);
    g = g.index_select(0, index);
    ids = ids.index_select(0, index);
  }
  return mix_copy_log_probs(logits, a, g, ids);
}

torch::Tensor UnilmModelImpl::nsp_logits(const torch::Tensor& pooled) {
  if (!cls || !cls->seq_relationship)
    throw InputError("this model has no next-sentence head (heads.nsp = false)");
  return linear(cls->seq_relationship, pooled);
}

torch::Tensor UnilmModelImpl::classify(const torch::Tensor& pooled) {
  if (!classifier) throw InputError("this model has no classification head (heads.num_labels = 0)");
  return linear(classifier, classifier_dropout(pooled));
}

std::pair<torch::Tensor, torch::Tensor> UnilmModelImpl::span_logits(const torch::Tensor& hidden) {
  if (!qa_outputs) throw InputError("this model has no span head (heads.span = false)");
  auto logits = linear(qa_outputs, hidden);  // [B,T,2]
  return {logits.select(-1, 0).contiguous(), logits.select(-1, 1).contiguous()};
}

StepOutput UnilmModelImpl::forward_step(const torch::Tensor& input_ids,
                                        const torch::Tensor& token_type_ids,
                                        const torch::Tensor& position_ids,
                                        const torch::Tensor& mask, const KVCache& past) {
  if (input_ids.dim() != 2) {
    throw InputError("input_ids must be 2-D [batch, new], got " + shape_str(input_ids));
  }
  const int64_t B = input_ids.size(0), Tn = input_ids.size(1);
  const int64_t Tc = past.length();
  if (!past.k.empty() &&
      (past.k.size() != bert->encoder->layers.size() || past.v.size() != past.k.size())) {
    throw InputError("KV cache has " + std::to_string(past.k.size()) + " layers, model has " +
                     std::to_string(bert->encoder->layers.size()));
  }
  if (Tc > 0 && past.k.front().size(0) != B) {
    throw InputError("KV cache batch " + std::to_string(past.k.front().size(0)) +
                     " differs from input batch " + std::to_string(B));
  }
  torch::Tensor bias;
  if (mask.defined()) {
    const bool ok2 = mask.dim() == 2 && mask.size(0) == B && mask.size(1) == Tc + Tn;
    const bool ok3 =
        mask.dim() == 3 && mask.size(0) == B && mask.size(1) == Tn && mask.size(2) == Tc + Tn;
    if (!ok2 && !ok3) {
      throw InputError("step mask shape " + shape_str(mask) + " does not fit " +
                       std::to_string(Tn) + " new positions after " + std::to_string(Tc) +
                       " cached ones (expected [B,Tn,Tc+Tn] or [B,Tc+Tn])");
    }
    bias = additive_attention_mask(mask.to(input_ids.device()),
                                   bert->embeddings->word_embeddings->weight.scalar_type());
  }
  StepOutput out;
  auto x = bert->embeddings->forward(input_ids, token_type_ids, position_ids, Tc);
  out.hidden = run_layers(x, bias, &past, &out.new_k, &out.new_v, nullptr);
  return out;
}

void UnilmModelImpl::init_weights() {
  torch::NoGradGuard no_grad;
  const double r = cfg_.initializer_range;
  // HF BertPreTrainedModel._init_weights.
  for (auto& m : modules(/*include_self=*/false)) {
    if (auto* lin = m->as<torch::nn::Linear>()) {
      lin->weight.normal_(0.0, r);
      if (lin->bias.defined()) lin->bias.zero_();
    } else if (auto* emb = m->as<torch::nn::Embedding>()) {
      emb->weight.normal_(0.0, r);
      if (emb->options.padding_idx()) emb->weight[*emb->options.padding_idx()].zero_();
    } else if (auto* ln = m->as<torch::nn::LayerNorm>()) {
      ln->weight.fill_(1.0);
      ln->bias.zero_();
    }
  }
  if (cls) cls->predictions->bias.zero_();
}

void UnilmModelImpl::init_task_heads() {
  torch::NoGradGuard no_grad;
  const double r = cfg_.initializer_range;
  for (auto* lin : {classifier.get(), qa_outputs.get()}) {
    if (!lin) continue;
    lin->weight.normal_(0.0, r);
    lin->bias.zero_();
  }
}

// ---------------------------------------------------------------- cache helpers

void append_to_cache(KVCache& cache, const StepOutput& step,
                     const std::vector<int64_t>& positions) {
  if (positions.empty()) return;
  const size_t L = step.new_k.size();
  const int64_t Tn = L ? step.new_k.front().size(2) : 0;
  for (int64_t p : positions) {
    if (p < 0 || p >= Tn) {
      throw std::out_of_range("append_to_cache: position " + std::to_string(p) + " not among the " +
                              std::to_string(Tn) + " new positions");
    }
  }
  if (!cache.k.empty() && cache.k.size() != L) {
    throw std::invalid_argument("append_to_cache: cache and step have different layer counts");
  }
  auto idx = torch::tensor(positions, torch::TensorOptions().dtype(torch::kLong))
                 .to(step.new_k.front().device());
  const bool fresh = cache.k.empty();
  if (fresh) {
    cache.k.resize(L);
    cache.v.resize(L);
  }
  if (cache.filled >= 0) {
    // Preallocated: copy into the free slots (where forward_step already put positions 0..P-1 of
    // a step run against this cache; copying them again keeps any `positions` correct).
    const int64_t P = static_cast<int64_t>(positions.size());
    reserve_cache(cache, cache.filled + P);
    for (size_t l = 0; l < L; ++l) {
      cache.k[l].narrow(2, cache.filled, P).copy_(step.new_k[l].index_select(2, idx));
      cache.v[l].narrow(2, cache.filled, P).copy_(step.new_v[l].index_select(2, idx));
    }
    cache.filled += P;
    return;
  }
  for (size_t l = 0; l < L; ++l) {
    auto k = step.new_k[l].index_select(2, idx);
    auto v = step.new_v[l].index_select(2, idx);
    cache.k[l] = fresh || !cache.k[l].defined() ? k : torch::cat({cache.k[l], k}, 2);
    cache.v[l] = fresh || !cache.v[l].defined() ? v : torch::cat({cache.v[l], v}, 2);
  }
}

void reorder_cache(KVCache& cache, const torch::Tensor& beam_index) {
  if (cache.filled >= 0 && !cache.k.empty() && beam_index.size(0) == cache.k.front().size(0)) {
    // Same batch size: permute the filled part in place. On the CPU (where reading the indices
    // costs no device sync) only the rows that take another row's states are copied.
    auto idx = beam_index.to(cache.k.front().device(), torch::kLong);
    torch::Tensor dst;  // rows to overwrite (undefined: all)
    if (idx.is_cpu()) {
      dst = idx.ne(torch::arange(idx.size(0), idx.options())).nonzero().flatten();
      if (dst.numel() == 0) return;
      if (dst.numel() == idx.size(0)) dst = torch::Tensor();
    }
    const torch::Tensor src = dst.defined() ? idx.index_select(0, dst) : idx;
    for (auto* buffers : {&cache.k, &cache.v}) {
      for (auto& b : *buffers) {
        auto part = b.narrow(2, 0, cache.filled);
        auto rows = part.index_select(0, src);  // gathered first: src and dst rows may overlap
        if (dst.defined()) {
          part.index_copy_(0, dst, rows);
        } else {
          part.copy_(rows);
        }
      }
    }
    return;
  }
  for (size_t l = 0; l < cache.k.size(); ++l) {
    auto idx = beam_index.to(cache.k[l].device(), torch::kLong);
    cache.k[l] = cache.k[l].index_select(0, idx);
    cache.v[l] = cache.v[l].index_select(0, idx);
  }
}

void reserve_cache(KVCache& cache, int64_t positions) {
  if (cache.k.empty()) throw std::invalid_argument("reserve_cache: the cache holds no layers yet");
  const int64_t len = cache.length();
  if (cache.filled >= 0 && cache.capacity() >= positions) return;
  const int64_t cap =
      std::max({positions, 2 * (cache.filled >= 0 ? cache.capacity() : 0), len + 64});
  for (auto* buffers : {&cache.k, &cache.v}) {
    for (auto& b : *buffers) {
      auto sizes = b.sizes().vec();
      sizes[2] = cap;
      auto grown = torch::empty(sizes, b.options());
      grown.narrow(2, 0, len).copy_(b.narrow(2, 0, len));
      b = grown;
    }
  }
  cache.filled = len;
}

}  // namespace unieval::models
