#pragma once
// Follows HF transformers (Apache-2.0) behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
// BertConfig: the hyper-parameters of a BERT / UniLM / MiniLM checkpoint, read from the
// `config.json` that Hugging Face transformers writes (`BertConfig.to_json_file`, v4.30.2).
//
//   auto cfg = unieval::models::BertConfig::from_json_file("ckpt/config.json");
//   UnilmModel model(cfg);                                   // models/nn/transformer.h
//   write_file_atomic("out/config.json", cfg.to_json().dump(2));
//
// Field names, meanings and defaults are HF's `BertConfig` (the defaults are BERT-base's). A field
// absent from the file takes the default, as `BertConfig.from_pretrained` does — HF's
// `use_diff=True` serialisation omits fields equal to the default. A field present with the wrong
// JSON type or an impossible value is an InputError naming the file and the field. Keys that
// carry no numerics (architectures, model_type, transformers_version, torch_dtype, use_cache,
// label maps, bos/eos ids, pooler_* of the Chinese BERT, ...) are ignored silently; any other key
// this struct does not read (e.g. UniLM v1's relax_projection, ffn_type, num_qkv, seg_emb,
// rel_pos_bins) is listed in `unknown_fields`, which load_checkpoint reports as a warning.
//
// Segment ids of seq2seq packing (seq2seq_segment_ids): UniLM v1 checkpoints have
// type_vocab_size 6 and were fine-tuned with source segment 4 and target segment 5
// (unilm-v1 `--new_segment_ids`); every other checkpoint uses 0/1 (BERT's). The optional config
// field "unilm_segment_ids": [source, target] overrides the rule.
//
// Numerics honoured: layer_norm_eps (every LayerNorm) and hidden_act (feed-forward and MLM head
// transform). Note that unilm-v1's own code hard-codes LayerNorm eps 1e-5 and its distributed
// configs have no layer_norm_eps: give "layer_norm_eps": 1e-5 in config.json to match it.
//
// | field                        | default | meaning                                                  |
// |------------------------------|---------|----------------------------------------------------------|
// | vocab_size                   | 30522   | rows of the word-embedding / MLM decoder matrix          |
// | hidden_size                  | 768     | model width H                                            |
// | num_hidden_layers            | 12      | transformer blocks                                       |
// | num_attention_heads          | 12      | heads; must divide hidden_size                           |
// | intermediate_size            | 3072    | feed-forward inner width                                 |
// | hidden_act                   | "gelu"  | "gelu" (exact erf form), "gelu_new" (tanh approx.), "relu" |
// | hidden_dropout_prob          | 0.1     | dropout on embeddings and block outputs (train() only)   |
// | attention_probs_dropout_prob | 0.1     | dropout on attention probabilities (train() only)        |
// | max_position_embeddings      | 512     | rows of the position-embedding matrix                    |
// | type_vocab_size              | 2       | rows of the segment (token type) matrix; UniLM v1 uses 6 |
// | initializer_range            | 0.02    | std of the N(0, σ²) init of new weights (HF _init_weights)|
// | layer_norm_eps               | 1e-12   | LayerNorm epsilon                                        |
// | pad_token_id                 | 0       | word-embedding padding_idx (its row gets no gradient)    |
// | position_embedding_type      | "absolute" | only "absolute" is supported (InputError otherwise)   |
// | classifier_dropout           | null    | dropout before the classification head; null = hidden_dropout_prob |
// | unilm_segment_ids            | absent  | [source, target] segment ids of seq2seq packing (ours)   |
// | unieval_pooling              | "cls"   | pooler input: "cls" (BERT), "mean" or "max" of the unmasked positions (ours) |
// | unieval_copy                 | false   | true adds the copy (pointer) head, models/nn/copy_head.h (ours) |
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace unieval::models {

enum class Activation { kGelu, kGeluTanh, kRelu };

// "gelu" | "gelu_new" | "gelu_pytorch_tanh" | "relu"; InputError otherwise.
Activation parse_activation(const std::string& name);
std::string to_string(Activation act);

struct BertConfig {
  int64_t vocab_size = 30522;                        // word-embedding rows
  int64_t hidden_size = 768;                         // model width
  int64_t num_hidden_layers = 12;                    // blocks
  int64_t num_attention_heads = 12;                  // heads (divide hidden_size)
  int64_t intermediate_size = 3072;                  // feed-forward width
  std::string hidden_act = "gelu";                   // see parse_activation
  double hidden_dropout_prob = 0.1;                  // dropout on hidden states
  double attention_probs_dropout_prob = 0.1;         // dropout on attention probabilities
  int64_t max_position_embeddings = 512;             // position-embedding rows
  int64_t type_vocab_size = 2;                       // segment-embedding rows
  double initializer_range = 0.02;                   // init std
  double layer_norm_eps = 1e-12;                     // LayerNorm epsilon
  int64_t pad_token_id = 0;                          // padding_idx of the word embeddings
  std::string position_embedding_type = "absolute";  // only "absolute"
  std::optional<double> classifier_dropout;          // null = hidden_dropout_prob
  std::optional<std::pair<int64_t, int64_t>> unilm_segment_ids;  // "unilm_segment_ids": [src, tgt]
  std::string pooling = "cls";  // "unieval_pooling": cls = BERT's tanh(dense(x[:, 0]));
                                // mean = tanh(dense(mean of the unmasked positions));
                                // max = tanh(dense(per-feature max of the unmasked positions))
  bool copy = false;  // "unieval_copy": the next-token distribution mixes in a copy of the source
  std::vector<std::string> unknown_fields;  // keys of the file not read (not serialised)

  int64_t head_dim() const { return hidden_size / num_attention_heads; }
  Activation activation() const { return parse_activation(hidden_act); }

  // Throws InputError(source, 0, "field: problem") when a value is impossible (non-positive
  // sizes, heads not dividing hidden_size, dropout outside [0,1), unknown activation, ...).
  void validate(const std::string& source = "config") const;

  // Parses a JSON object; `source` names it in errors (a file path). Validates.
  static BertConfig from_json(const nlohmann::json& j, const std::string& source = "config");
  // Reads and parses `path` (InputError if unreadable or not JSON).
  static BertConfig from_json_file(const std::string& path);
  // All fields, HF names (model_type "bert"), loadable by HF's BertConfig.from_pretrained.
  nlohmann::json to_json() const;

  // Segment ids {source, target} for seq2seq packing: unilm_segment_ids when given, else {4, 5}
  // when type_vocab_size == 6 (UniLM v1), else {0, 1}.
  std::pair<int64_t, int64_t> seq2seq_segment_ids() const;

  // A tiny config for tests and demos: 2 layers, hidden 32, 4 heads, intermediate 64, vocab 128,
  // 64 positions, dropout as given.
  static BertConfig tiny(int64_t vocab_size = 128, double dropout = 0.0);
};

}  // namespace unieval::models
