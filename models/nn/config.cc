// Follows HF transformers (Apache-2.0) and UniLM (MIT) behaviour; no code copied; see
// THIRD_PARTY_NOTICES.md.
#include "models/nn/config.h"

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "core/error.h"
#include "models/nn/config_fields.h"

namespace unieval::models {

Activation parse_activation(const std::string& name) {
  if (name == "gelu") return Activation::kGelu;
  if (name == "gelu_new" || name == "gelu_pytorch_tanh") return Activation::kGeluTanh;
  if (name == "relu") return Activation::kRelu;
  throw InputError("hidden_act: unsupported activation '" + name +
                   "' (expected gelu, gelu_new, gelu_pytorch_tanh or relu)");
}

std::string to_string(Activation act) {
  switch (act) {
    case Activation::kGelu:
      return "gelu";
    case Activation::kGeluTanh:
      return "gelu_new";
    case Activation::kRelu:
      return "relu";
  }
  return "gelu";
}

using config_fields::bad;
using config_fields::get_double;
using config_fields::get_int;
using config_fields::get_string;

void BertConfig::validate(const std::string& source) const {
  auto positive = [&](const char* name, int64_t v) {
    if (v <= 0) bad(source, name, "must be positive, got " + std::to_string(v));
  };
  positive("vocab_size", vocab_size);
  positive("hidden_size", hidden_size);
  positive("num_hidden_layers", num_hidden_layers);
  positive("num_attention_heads", num_attention_heads);
  positive("intermediate_size", intermediate_size);
  positive("max_position_embeddings", max_position_embeddings);
  positive("type_vocab_size", type_vocab_size);
  if (hidden_size % num_attention_heads != 0) {
    bad(source, "num_attention_heads",
        std::to_string(num_attention_heads) + " does not divide hidden_size " +
            std::to_string(hidden_size));
  }
  auto prob = [&](const char* name, double p) {
    if (!(p >= 0.0 && p < 1.0)) bad(source, name, "must be in [0, 1), got " + std::to_string(p));
  };
  prob("hidden_dropout_prob", hidden_dropout_prob);
  prob("attention_probs_dropout_prob", attention_probs_dropout_prob);
  if (classifier_dropout) prob("classifier_dropout", *classifier_dropout);
  if (!(layer_norm_eps > 0.0)) bad(source, "layer_norm_eps", "must be positive");
  if (!(initializer_range >= 0.0)) bad(source, "initializer_range", "must be >= 0");
  if (pad_token_id < 0 || pad_token_id >= vocab_size) {
    bad(source, "pad_token_id",
        std::to_string(pad_token_id) + " is outside the vocabulary [0, " +
            std::to_string(vocab_size) + ")");
  }
  try {
    parse_activation(hidden_act);
  } catch (const InputError& e) {
    throw InputError(source, 0, e.problem());
  }
  if (unilm_segment_ids) {
    for (int64_t id : {unilm_segment_ids->first, unilm_segment_ids->second})
      if (id < 0 || id >= type_vocab_size)
        bad(source, "unilm_segment_ids",
            std::to_string(id) + " is outside [0, type_vocab_size " +
                std::to_string(type_vocab_size) + ")");
  }
  if (pooling != "cls" && pooling != "mean" && pooling != "max")
    bad(source, "unieval_pooling", "'" + pooling + "' is not a pooling (cls, mean or max)");
  if (position_embedding_type != "absolute") {
    bad(source, "position_embedding_type",
        "'" + position_embedding_type + "' is not supported (only 'absolute')");
  }
}

BertConfig BertConfig::from_json(const nlohmann::json& j, const std::string& source) {
  if (!j.is_object()) throw InputError(source, 0, "config must be a JSON object");
  BertConfig c;
  get_int(j, "vocab_size", c.vocab_size, source);
  get_int(j, "hidden_size", c.hidden_size, source);
  get_int(j, "num_hidden_layers", c.num_hidden_layers, source);
  get_int(j, "num_attention_heads", c.num_attention_heads, source);
  get_int(j, "intermediate_size", c.intermediate_size, source);
  get_string(j, "hidden_act", c.hidden_act, source);
  get_double(j, "hidden_dropout_prob", c.hidden_dropout_prob, source);
  get_double(j, "attention_probs_dropout_prob", c.attention_probs_dropout_prob, source);
  get_int(j, "max_position_embeddings", c.max_position_embeddings, source);
  get_int(j, "type_vocab_size", c.type_vocab_size, source);
  get_double(j, "initializer_range", c.initializer_range, source);
  get_double(j, "layer_norm_eps", c.layer_norm_eps, source);
  get_int(j, "pad_token_id", c.pad_token_id, source);
  get_string(j, "position_embedding_type", c.position_embedding_type, source);
  if (auto it = j.find("classifier_dropout"); it != j.end() && !it->is_null()) {
    double d = 0;
    get_double(j, "classifier_dropout", d, source);
    c.classifier_dropout = d;
  }
  if (auto it = j.find("unilm_segment_ids"); it != j.end() && !it->is_null()) {
    if (!it->is_array() || it->size() != 2 || !(*it)[0].is_number_integer() ||
        !(*it)[1].is_number_integer())
      bad(source, "unilm_segment_ids", "expected [source, target] integers, got " + it->dump());
    c.unilm_segment_ids = std::make_pair((*it)[0].get<int64_t>(), (*it)[1].get<int64_t>());
  }
  if (auto it = j.find("unieval_pooling"); it != j.end() && !it->is_null()) {
    if (!it->is_string())
      bad(source, "unieval_pooling", "expected \"cls\", \"mean\" or \"max\", got " + it->dump());
    c.pooling = it->get<std::string>();
  }
  if (auto it = j.find("unieval_copy"); it != j.end() && !it->is_null()) {
    if (!it->is_boolean()) bad(source, "unieval_copy", "expected true or false, got " + it->dump());
    c.copy = it->get<bool>();
  }
  static const std::set<std::string> kRead = {"vocab_size",
                                              "hidden_size",
                                              "num_hidden_layers",
                                              "num_attention_heads",
                                              "intermediate_size",
                                              "hidden_act",
                                              "hidden_dropout_prob",
                                              "attention_probs_dropout_prob",
                                              "max_position_embeddings",
                                              "type_vocab_size",
                                              "initializer_range",
                                              "layer_norm_eps",
                                              "pad_token_id",
                                              "position_embedding_type",
                                              "classifier_dropout",
                                              "unilm_segment_ids",
                                              "unieval_pooling",
                                              "unieval_copy"};
  // Keys without numerics (HF bookkeeping, generation and label settings).
  static const std::set<std::string> kNoNumerics = {"architectures",
                                                    "model_type",
                                                    "unieval_arch",
                                                    "unieval_target_bos",
                                                    "transformers_version",
                                                    "torch_dtype",
                                                    "use_cache",
                                                    "gradient_checkpointing",
                                                    "_name_or_path",
                                                    "bos_token_id",
                                                    "eos_token_id",
                                                    "output_past",
                                                    "id2label",
                                                    "label2id",
                                                    "num_labels",
                                                    "problem_type",
                                                    "finetuning_task",
                                                    "tokenizer_class",
                                                    "directionality",
                                                    "pooler_fc_size",
                                                    "pooler_num_attention_heads",
                                                    "pooler_num_fc_layers",
                                                    "pooler_size_per_head",
                                                    "pooler_type",
                                                    "is_decoder",
                                                    "add_cross_attention",
                                                    "return_dict",
                                                    "output_hidden_states",
                                                    "output_attentions"};
  for (const auto& item : j.items())
    if (!kRead.count(item.key()) && !kNoNumerics.count(item.key()))
      c.unknown_fields.push_back(item.key());
  c.validate(source);
  return c;
}

BertConfig BertConfig::from_json_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "cannot open config file");
  std::stringstream ss;
  ss << in.rdbuf();
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(ss.str());
  } catch (const nlohmann::json::exception&
               e) {  // parse_error, and out_of_range for a number past a double
    throw InputError(path, 0, std::string("not valid JSON: ") + e.what());
  }
  return from_json(j, path);
}

nlohmann::json BertConfig::to_json() const {
  nlohmann::json j;
  j["model_type"] = "bert";
  j["architectures"] = nlohmann::json::array({"BertForMaskedLM"});
  j["vocab_size"] = vocab_size;
  j["hidden_size"] = hidden_size;
  j["num_hidden_layers"] = num_hidden_layers;
  j["num_attention_heads"] = num_attention_heads;
  j["intermediate_size"] = intermediate_size;
  j["hidden_act"] = hidden_act;
  j["hidden_dropout_prob"] = hidden_dropout_prob;
  j["attention_probs_dropout_prob"] = attention_probs_dropout_prob;
  j["max_position_embeddings"] = max_position_embeddings;
  j["type_vocab_size"] = type_vocab_size;
  j["initializer_range"] = initializer_range;
  j["layer_norm_eps"] = layer_norm_eps;
  j["pad_token_id"] = pad_token_id;
  j["position_embedding_type"] = position_embedding_type;
  j["classifier_dropout"] =
      classifier_dropout ? nlohmann::json(*classifier_dropout) : nlohmann::json();
  if (unilm_segment_ids)
    j["unilm_segment_ids"] = {unilm_segment_ids->first, unilm_segment_ids->second};
  if (pooling != "cls") j["unieval_pooling"] = pooling;  // HF's BertPooler knows only [CLS]
  if (copy) j["unieval_copy"] = true;                    // HF has no copy head
  return j;
}

std::pair<int64_t, int64_t> BertConfig::seq2seq_segment_ids() const {
  if (unilm_segment_ids) return *unilm_segment_ids;
  if (type_vocab_size == 6) return {4, 5};
  return {0, 1};
}

BertConfig BertConfig::tiny(int64_t vocab_size, double dropout) {
  BertConfig c;
  c.vocab_size = vocab_size;
  c.hidden_size = 32;
  c.num_hidden_layers = 2;
  c.num_attention_heads = 4;
  c.intermediate_size = 64;
  c.max_position_embeddings = 64;
  c.hidden_dropout_prob = dropout;
  c.attention_probs_dropout_prob = dropout;
  return c;
}

}  // namespace unieval::models
