// Follows HF transformers (Apache-2.0) behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
// GPT-1 numerics and checkpoint names; see gpt.h.
#include "models/nn/gpt.h"

#include <cmath>
#include <filesystem>
#include <limits>
#include <set>

#include "core/error.h"
#include "core/io.h"
#include "core/py_string.h"
#include "models/io/safetensors.h"
#include "models/nn/config_fields.h"

namespace unieval::models {

namespace fs = std::filesystem;

using config_fields::bad;
using config_fields::get_double;
using config_fields::get_int;
using config_fields::get_string;

namespace {

// HF ACT2FN as OpenAIGPTConfig's afn uses it: "gelu" is gelu_new (tanh form) there.
torch::Tensor activate(const torch::Tensor& x, const std::string& afn) {
  if (afn == "gelu" || afn == "gelu_new") return torch::gelu(x, "tanh");
  if (afn == "relu") return torch::relu(x);
  return torch::silu(x);  // "silu", "swish" (validated)
}

torch::Tensor checked_gpt_ids(const torch::Tensor& ids, int64_t limit, const char* what,
                              const char* field) {
  if (ids.scalar_type() != torch::kLong && ids.scalar_type() != torch::kInt)
    throw InputError(std::string(what) + " must be integer ids");
  if (ids.numel() > 0) {
    const int64_t lo = ids.min().item<int64_t>(), hi = ids.max().item<int64_t>();
    if (lo < 0 || hi >= limit)
      throw InputError(std::string(what) + " out of range: found " +
                       std::to_string(lo < 0 ? lo : hi) + ", the model's " + field + " is " +
                       std::to_string(limit));
  }
  return ids.to(torch::kLong);
}

}  // namespace

// ---- config ----

void GptConfig::validate(const std::string& source) const {
  auto positive = [&](const char* name, int64_t v) {
    if (v <= 0) bad(source, name, "must be positive, got " + std::to_string(v));
  };
  positive("vocab_size", vocab_size);
  positive("n_positions", n_positions);
  positive("n_embd", n_embd);
  positive("n_layer", n_layer);
  positive("n_head", n_head);
  if (n_embd % n_head != 0)
    bad(source, "n_head",
        std::to_string(n_head) + " does not divide n_embd " + std::to_string(n_embd));
  auto prob = [&](const char* name, double p) {
    if (!(p >= 0.0 && p < 1.0)) bad(source, name, "must be in [0, 1), got " + std::to_string(p));
  };
  prob("resid_pdrop", resid_pdrop);
  prob("embd_pdrop", embd_pdrop);
  prob("attn_pdrop", attn_pdrop);
  prob("summary_first_dropout", summary_first_dropout);
  if (!(layer_norm_epsilon > 0.0)) bad(source, "layer_norm_epsilon", "must be positive");
  if (!(initializer_range >= 0.0)) bad(source, "initializer_range", "must be >= 0");
  if (afn != "gelu" && afn != "gelu_new" && afn != "relu" && afn != "silu" && afn != "swish")
    bad(source, "afn",
        "unknown activation '" + afn + "' (expected gelu, gelu_new, relu, silu or swish)");
}

GptConfig GptConfig::from_json(const nlohmann::json& j, const std::string& source) {
  if (!j.is_object()) throw InputError(source, 0, "config must be a JSON object");
  GptConfig c;
  get_int(j, "vocab_size", c.vocab_size, source);
  get_int(j, "n_positions", c.n_positions, source);
  get_int(j, "n_embd", c.n_embd, source);
  get_int(j, "n_layer", c.n_layer, source);
  get_int(j, "n_head", c.n_head, source);
  get_string(j, "afn", c.afn, source);
  get_double(j, "resid_pdrop", c.resid_pdrop, source);
  get_double(j, "embd_pdrop", c.embd_pdrop, source);
  get_double(j, "attn_pdrop", c.attn_pdrop, source);
  get_double(j, "layer_norm_epsilon", c.layer_norm_epsilon, source);
  get_double(j, "initializer_range", c.initializer_range, source);
  get_double(j, "summary_first_dropout", c.summary_first_dropout, source);
  // Keys without numerics here: HF bookkeeping and the SequenceSummary options whose only values
  // HF's double-heads model uses (cls_index, a projection to one output, no activation).
  static const std::set<std::string> kKnown = {"vocab_size",
                                               "n_positions",
                                               "n_embd",
                                               "n_layer",
                                               "n_head",
                                               "afn",
                                               "resid_pdrop",
                                               "embd_pdrop",
                                               "attn_pdrop",
                                               "layer_norm_epsilon",
                                               "initializer_range",
                                               "summary_first_dropout",
                                               "summary_type",
                                               "summary_use_proj",
                                               "summary_activation",
                                               "summary_proj_to_labels",
                                               "architectures",
                                               "model_type",
                                               "transformers_version",
                                               "torch_dtype",
                                               "n_ctx",
                                               "n_special",
                                               "predict_special_tokens",
                                               "id2label",
                                               "label2id",
                                               "task_specific_params",
                                               "_name_or_path"};
  for (auto it = j.begin(); it != j.end(); ++it)
    if (!kKnown.count(it.key())) c.unknown_fields.push_back(it.key());
  c.validate(source);
  return c;
}

GptConfig GptConfig::from_json_file(const std::string& path) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(core::read_file(path));
  } catch (const nlohmann::json::exception& e) {
    throw InputError(path, 0, std::string("not valid JSON: ") + e.what());
  }
  return from_json(j, path);
}

nlohmann::json GptConfig::to_json() const {
  nlohmann::ordered_json j;
  j["afn"] = afn;
  j["architectures"] = {"OpenAIGPTLMHeadModel"};
  j["attn_pdrop"] = attn_pdrop;
  j["embd_pdrop"] = embd_pdrop;
  j["initializer_range"] = initializer_range;
  j["layer_norm_epsilon"] = layer_norm_epsilon;
  j["model_type"] = "openai-gpt";
  j["n_embd"] = n_embd;
  j["n_head"] = n_head;
  j["n_layer"] = n_layer;
  j["n_positions"] = n_positions;
  j["resid_pdrop"] = resid_pdrop;
  j["summary_activation"] = nullptr;
  j["summary_first_dropout"] = summary_first_dropout;
  j["summary_proj_to_labels"] = true;
  j["summary_type"] = "cls_index";
  j["summary_use_proj"] = true;
  j["vocab_size"] = vocab_size;
  return nlohmann::json::parse(j.dump());
}

bool GptConfig::is_gpt_config(const nlohmann::json& j) {
  if (!j.is_object()) return false;
  auto mt = j.find("model_type");
  if (mt != j.end() && mt->is_string()) return mt->get<std::string>() == "openai-gpt";
  return j.contains("n_embd") && j.contains("afn");
}

GptConfig GptConfig::tiny(int64_t vocab_size, double dropout) {
  GptConfig c;
  c.vocab_size = vocab_size;
  c.n_positions = 64;
  c.n_embd = 32;
  c.n_layer = 2;
  c.n_head = 4;
  c.resid_pdrop = c.embd_pdrop = c.attn_pdrop = c.summary_first_dropout = dropout;
  return c;
}

// ---- modules ----

Conv1DImpl::Conv1DImpl(int64_t in, int64_t out) {
  weight = register_parameter("weight", torch::empty({in, out}));
  bias = register_parameter("bias", torch::zeros({out}));
  torch::NoGradGuard g;
  weight.normal_(0.0, 0.02);
}

torch::Tensor Conv1DImpl::forward(const torch::Tensor& x) {
  auto shape = x.sizes().vec();
  shape.back() = weight.size(1);
  return torch::addmm(bias, x.reshape({-1, x.size(-1)}), weight).view(shape);
}

GptAttentionImpl::GptAttentionImpl(const GptConfig& cfg)
    : n_head(cfg.n_head), head_dim(cfg.head_dim()) {
  c_attn = register_module("c_attn", Conv1D(cfg.n_embd, 3 * cfg.n_embd));
  c_proj = register_module("c_proj", Conv1D(cfg.n_embd, cfg.n_embd));
  attn_dropout = register_module("attn_dropout", Dropout(cfg.attn_pdrop));
  resid_dropout = register_module("resid_dropout", Dropout(cfg.resid_pdrop));
}

torch::Tensor GptAttentionImpl::forward(const torch::Tensor& x, const torch::Tensor& key_bias) {
  const int64_t B = x.size(0), T = x.size(1), E = x.size(2);
  auto qkv = c_attn(x).split(E, 2);
  auto heads = [&](const torch::Tensor& t) {
    return t.view({B, T, n_head, head_dim}).permute({0, 2, 1, 3});
  };
  torch::Tensor q = heads(qkv[0]), k = heads(qkv[1]), v = heads(qkv[2]);
  torch::Tensor w =
      torch::matmul(q, k.transpose(-1, -2)) / std::sqrt(static_cast<double>(head_dim));
  // HF _attn: w * b + -1e4 * (1 - b) with b the causal 0/1 matrix, then the padding bias.
  torch::Tensor b = torch::ones({T, T}, w.options()).tril().view({1, 1, T, T});
  w = w * b + -1e4 * (1 - b);
  if (key_bias.defined()) w = w + key_bias;
  w = torch::softmax(w, -1);
  w = attn_dropout(w);
  torch::Tensor a = torch::matmul(w, v).permute({0, 2, 1, 3}).contiguous().view({B, T, E});
  return resid_dropout(c_proj(a));
}

GptMlpImpl::GptMlpImpl(const GptConfig& cfg) : afn(cfg.afn) {
  c_fc = register_module("c_fc", Conv1D(cfg.n_embd, 4 * cfg.n_embd));
  c_proj = register_module("c_proj", Conv1D(4 * cfg.n_embd, cfg.n_embd));
  dropout = register_module("dropout", Dropout(cfg.resid_pdrop));
}

torch::Tensor GptMlpImpl::forward(const torch::Tensor& x) {
  return dropout(c_proj(activate(c_fc(x), afn)));
}

GptBlockImpl::GptBlockImpl(const GptConfig& cfg) {
  auto ln = [&] {
    return torch::nn::LayerNorm(
        torch::nn::LayerNormOptions({cfg.n_embd}).eps(cfg.layer_norm_epsilon));
  };
  attn = register_module("attn", GptAttention(cfg));
  ln_1 = register_module("ln_1", ln());
  mlp = register_module("mlp", GptMlp(cfg));
  ln_2 = register_module("ln_2", ln());
}

torch::Tensor GptBlockImpl::forward(const torch::Tensor& x, const torch::Tensor& key_bias) {
  torch::Tensor n = ln_1(x + attn(x, key_bias));
  return ln_2(n + mlp(n));
}

GptTransformerImpl::GptTransformerImpl(const GptConfig& cfg) {
  tokens_embed = register_module("tokens_embed", torch::nn::Embedding(cfg.vocab_size, cfg.n_embd));
  positions_embed =
      register_module("positions_embed", torch::nn::Embedding(cfg.n_positions, cfg.n_embd));
  drop = register_module("drop", Dropout(cfg.embd_pdrop));
  h = register_module("h", torch::nn::ModuleList());
  for (int64_t i = 0; i < cfg.n_layer; ++i) {
    blocks.push_back(GptBlock(cfg));
    h->push_back(blocks.back());
  }
}

GptSummaryImpl::GptSummaryImpl(int64_t n_embd) {
  summary = register_module("summary", torch::nn::Linear(n_embd, 1));
}

GptModelImpl::GptModelImpl(const GptConfig& cfg, const GptHeads& heads) : cfg_(cfg), heads_(heads) {
  cfg_.validate("GPT config");
  transformer = register_module("transformer", GptTransformer(cfg_));
  if (heads_.multiple_choice)
    multiple_choice_head = register_module("multiple_choice_head", GptSummary(cfg_.n_embd));
  if (heads_.num_labels > 0)
    classifier = register_module("classifier", torch::nn::Linear(cfg_.n_embd, heads_.num_labels));
  head_dropout = register_module("head_dropout", Dropout(cfg_.summary_first_dropout));
  init_weights();
}

GptOutput GptModelImpl::forward(const torch::Tensor& input_ids, const torch::Tensor& attention_mask,
                                const torch::Tensor& token_type_ids,
                                const torch::Tensor& position_ids, bool output_hidden_states) {
  if (input_ids.dim() != 2) throw InputError("input_ids must be 2-D [batch, time]");
  const int64_t B = input_ids.size(0), T = input_ids.size(1);
  if (T > cfg_.n_positions)
    throw InputError("input of " + std::to_string(T) + " tokens exceeds the model's n_positions (" +
                     std::to_string(cfg_.n_positions) + ")");
  const torch::Tensor ids = checked_gpt_ids(input_ids, cfg_.vocab_size, "input_ids", "vocab_size");
  torch::Tensor pos;
  if (position_ids.defined()) {
    if (position_ids.sizes() != input_ids.sizes())
      throw InputError("position_ids must have the shape of input_ids");
    pos = checked_gpt_ids(position_ids, cfg_.n_positions, "position_ids", "n_positions");
  } else {
    pos = torch::arange(T, torch::TensorOptions().dtype(torch::kLong).device(ids.device()))
              .unsqueeze(0)
              .expand({B, T});
  }
  torch::Tensor x = transformer->tokens_embed(ids) + transformer->positions_embed(pos);
  if (token_type_ids.defined()) {
    if (token_type_ids.sizes() != input_ids.sizes())
      throw InputError("token_type_ids must have the shape of input_ids");
    x = x + transformer->tokens_embed(
                checked_gpt_ids(token_type_ids, cfg_.vocab_size, "token_type_ids", "vocab_size"));
  }
  x = transformer->drop(x);
  torch::Tensor key_bias;
  if (attention_mask.defined()) {
    if (attention_mask.dim() != 2 || attention_mask.size(0) != B || attention_mask.size(1) != T)
      throw InputError("attention_mask must be [batch, time] like input_ids");
    // HF: (1 - m) * finfo(dtype).min on each key.
    key_bias = (1.0 - attention_mask.to(x.dtype()).view({B, 1, 1, T})) *
               std::numeric_limits<float>::lowest();
  }
  GptOutput out;
  if (output_hidden_states) out.hidden_states.push_back(x);
  for (auto& blk : transformer->blocks) {
    x = blk->forward(x, key_bias);
    if (output_hidden_states) out.hidden_states.push_back(x);
  }
  out.last_hidden_state = x;
  return out;
}

torch::Tensor GptModelImpl::lm_logits(const torch::Tensor& hidden) {
  return torch::matmul(hidden, transformer->tokens_embed->weight.t());
}

torch::Tensor GptModelImpl::gather_positions(const torch::Tensor& hidden,
                                             const torch::Tensor& index) {
  const int64_t N = hidden.size(0), E = hidden.size(2);
  return hidden.gather(1, index.to(torch::kLong).view({N, 1, 1}).expand({N, 1, E})).squeeze(1);
}

torch::Tensor GptModelImpl::classify(const torch::Tensor& x) {
  if (!classifier) throw InputError("the model has no classification head");
  return classifier(head_dropout(x));
}

torch::Tensor GptModelImpl::choice_score(const torch::Tensor& x) {
  if (!multiple_choice_head) throw InputError("the model has no multiple-choice head");
  return multiple_choice_head->summary(head_dropout(x)).squeeze(-1);
}

void GptModelImpl::init_weights() {
  torch::NoGradGuard g;
  const double s = cfg_.initializer_range;
  for (auto& item : named_parameters()) {
    const std::string& n = item.key();
    torch::Tensor& p = item.value();
    const bool ln = n.find(".ln_") != std::string::npos;
    if (ln) {
      if (core::py_endswith(n, ".weight"))
        p.fill_(1.0);
      else
        p.zero_();
    } else if (core::py_endswith(n, ".bias")) {
      p.zero_();
    } else {
      p.normal_(0.0, s);
    }
  }
}

void GptModelImpl::resize_token_embeddings(int64_t n) {
  const int64_t old = cfg_.vocab_size;
  if (n == old) return;
  if (n < old)
    throw InputError("cannot shrink the token embeddings from " + std::to_string(old) + " to " +
                     std::to_string(n) + " rows");
  torch::Tensor w = transformer->tokens_embed->weight;
  auto e = torch::nn::Embedding(n, cfg_.n_embd);
  {
    torch::NoGradGuard g;
    e->weight.normal_(0.0, cfg_.initializer_range);
    e->weight.narrow(0, 0, old).copy_(w);
  }
  e->to(w.device(), w.scalar_type());
  transformer->tokens_embed = transformer->replace_module("tokens_embed", e);
  cfg_.vocab_size = n;
}

// ---- checkpoints ----

const CheckpointNames& gpt_checkpoint_names() {
  static const CheckpointNames names = [] {
    CheckpointNames n;
    n.fix = [](const std::string& key) {
      if (core::py_startswith(key, "tokens_embed.") ||
          core::py_startswith(key, "positions_embed.") || core::py_startswith(key, "h.") ||
          key == "position_ids")
        return "transformer." + key;
      return key;
    };
    n.alias = [](const std::string& key) {
      return key == "lm_head.weight" ? std::string("transformer.tokens_embed.weight")
                                     : std::string();
    };
    n.ignored = [](const std::string& key) {
      return key == "transformer.position_ids" ||
             (core::py_startswith(key, "transformer.h.") && core::py_endswith(key, ".attn.bias")) ||
             (core::py_startswith(key, "transformer.h.") &&
              core::py_endswith(key, ".attn.masked_bias"));
    };
    return n;
  }();
  return names;
}

LoadReport load_gpt_weights(GptModel& model, const std::string& weights_path, bool strict) {
  LoadOptions o;
  o.strict = strict;
  o.names = &gpt_checkpoint_names();
  return load_weights(*model, weights_path, o);
}

GptModel load_gpt_checkpoint(const std::string& path, const GptHeads& heads, LoadReport* report,
                             int64_t vocab_size_at_least) {
  CheckpointFiles files = locate_checkpoint(path);
  GptConfig cfg = GptConfig::from_json_file(files.config);
  GptModel model(cfg, heads);
  LoadReport r = load_gpt_weights(model, files.weights);
  r.config_source = files.config;
  r.unknown_config_fields = cfg.unknown_fields;
  if (vocab_size_at_least > model->config().vocab_size)
    model->resize_token_embeddings(vocab_size_at_least);
  model->eval();
  if (report) *report = std::move(r);
  return model;
}

void save_gpt_checkpoint(GptModel& model, const std::string& dir, bool store_lm_head) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw InputError(dir, 0, "cannot create checkpoint directory: " + ec.message());
  std::vector<std::pair<std::string, torch::Tensor>> tensors;
  for (const auto& item : model->named_parameters())
    tensors.emplace_back(item.key(), item.value().detach());
  if (store_lm_head)
    tensors.emplace_back("lm_head.weight",
                         model->transformer->tokens_embed->weight.detach().clone());
  const fs::path d(dir);
  write_safetensors((d / "model.safetensors").string(), tensors, {{"format", "pt"}});
  core::write_file_atomic((d / "config.json").string(), model->config().to_json().dump(2) + "\n");
}

bool is_gpt_checkpoint(const std::string& path) {
  std::error_code ec;
  fs::path cfg = fs::is_directory(path, ec) ? fs::path(path) / "config.json"
                                            : fs::path(path).parent_path() / "config.json";
  if (!fs::exists(cfg, ec)) return false;
  try {
    return GptConfig::is_gpt_config(nlohmann::json::parse(core::read_file(cfg.string())));
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace unieval::models
