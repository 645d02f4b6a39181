#pragma once
// Follows HF transformers (Apache-2.0) behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
// Checkpoints: a directory in the Hugging Face layout, loaded into / saved from a UnilmModel
// (models/nn/transformer.h) by parameter name.
//
//   ckpt/config.json          HF BertConfig (models/nn/config.h)
//   ckpt/model.safetensors    weights under HF BERT names (models/io/safetensors.h), or
//   ckpt/pytorch_model.bin    a torch.save'd state dict, zip or legacy format (models/io/torch_bin.h),
//                             read when model.safetensors is absent (HF and original UniLM names)
//   ckpt/vocab.txt            WordPiece vocabulary (optional; models/tokenizer/wordpiece.h)
//
//   LoadReport report;
//   UnilmModel model = load_checkpoint("ckpt", {.num_labels = 3}, &report);
//   std::cerr << report.summary();                       // HF-style missing/unexpected lists
//   save_checkpoint(model, "out", {.vocab_path = "ckpt/vocab.txt"});
//
// Name mapping (checkpoint key -> `named_parameters()` name), applied in this order:
//   1. TF-era LayerNorm names: "*.LayerNorm.gamma" -> "*.LayerNorm.weight", ".beta" -> ".bias"
//      (HF `_fix_key`);
//   2. checkpoints of a bare BertModel (keys "embeddings.*", "encoder.*", "pooler.*") get the
//      "bert." prefix, as HF does when loading a base model into a model with heads;
//   3. tied weights (kTiedAliases): "cls.predictions.decoder.weight" loads into
//      "bert.embeddings.word_embeddings.weight" and "cls.predictions.decoder.bias" into
//      "cls.predictions.bias". When both a key and its alias are stored the alias is loaded last
//      and wins, as in HF (the tied parameter is loaded twice, decoder last); a difference between
//      the two is listed in `tied_conflicts`. When the alias is absent (HF's
//      save_pretrained(safe_serialization=True) drops it) the tie supplies it: nothing is missing;
//   4. ignored, not "unexpected" (kIgnoredCheckpointPrefixes): "bert.embeddings.position_ids"
//      (an I64 buffer HF 4.30 saves) and "cls.seq_relationship.*" (the NSP head);
//   5. everything else must match a parameter name exactly; others are `unexpected_keys`, and
//      parameters nothing supplied are `missing_keys` (they keep their current values; HF would
//      say "newly initialized").
// A shape mismatch is an InputError (HF raises too unless ignore_mismatched_sizes). Floating
// tensors of any stored dtype (F32/F16/BF16/F64) are converted to the parameter's dtype; an
// integer tensor for a floating parameter is an InputError.
//
// Saving writes every parameter under its HF name (F32 unless the model was converted), without
// the tied decoder copies unless SaveOptions::store_tied_decoder, with metadata {"format": "pt"}:
// the key set of HF's save_pretrained(safe_serialization=True), loadable by HF's BertForPreTraining
// (which reports cls.seq_relationship.* as newly initialised).
//
// `load_checkpoint` also accepts the path of a .safetensors or .bin (.pt, .pth) file; config.json is then read from the
// same directory (to test a differently named weights file, e.g. model.tied_dropped.safetensors).
#include <torch/torch.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "models/io/safetensors.h"
#include "models/io/torch_bin.h"
#include "models/nn/config.h"
#include "models/nn/transformer.h"

namespace unieval::models {

struct LoadReport {
  std::string source;                        // the weights file
  std::vector<std::string> missing_keys;     // model parameters the checkpoint did not supply
  std::vector<std::string> unexpected_keys;  // checkpoint keys with no parameter (as stored)
  std::vector<std::string> ignored_keys;     // skipped on purpose (position_ids, NSP head)
  std::vector<std::string> tied_keys;        // alias keys loaded into their tied parameter
  std::vector<std::string> tied_conflicts;   // alias stored with values unequal to its target
  std::vector<std::string> renamed_keys;     // "stored -> parameter" for rules 1-2
  size_t loaded = 0;                         // parameters written
  bool complete() const { return missing_keys.empty() && unexpected_keys.empty(); }
  std::string config_source;                       // the config.json read (load_checkpoint)
  std::vector<std::string> unknown_config_fields;  // its keys BertConfig does not read
  // HF-style text: "Some weights of the model checkpoint at X were not used ...: [...]" and
  // "Some weights of UnilmModel were not initialized from the model checkpoint at X ...: [...]";
  // empty when complete and without conflicts.
  std::string summary() const;
};

// How stored keys map onto a model's parameter names. Unset members take the BERT rules above
// (rules 1-2, kTiedAliases, kIgnoredCheckpointPrefixes); GPT has its own (models/nn/gpt.h).
struct CheckpointNames {
  std::function<std::string(const std::string&)> fix;  // rules 1-2: stored key -> name
  std::function<std::string(const std::string&)>
      alias;  // rule 3: tied alias -> its parameter ("" = none)
  std::function<bool(const std::string&)> ignored;  // rule 4: skipped on purpose
};

struct LoadOptions {
  bool strict = false;  // InputError when anything is missing or unexpected (torch strict=True)
  const CheckpointNames* names = nullptr;  // key rules (nullptr: BERT's)
};

struct SaveOptions {
  bool store_tied_decoder = false;  // also write cls.predictions.decoder.{weight,bias} copies
  std::string vocab_path;           // copied to DIR/vocab.txt when non-empty
};

// Where a checkpoint's files are: DIR/config.json, DIR/model.safetensors (else
// DIR/pytorch_model.bin), DIR/vocab.txt (empty when absent). `path` may also be a .safetensors or
// .bin file (see above). InputError, naming what is missing, when the config or weights cannot be
// found.
struct CheckpointFiles {
  std::string config;
  std::string weights;
  std::string vocab;
};
CheckpointFiles locate_checkpoint(const std::string& path);

// The parameter name a checkpoint key maps to (rules 1-3 above; tied aliases resolved).
std::string checkpoint_key_to_parameter(const std::string& key);

// Loads the tensors of an open safetensors file into `model` by name (rules above).
LoadReport load_weights(torch::nn::Module& model, const SafetensorsFile& file,
                        const LoadOptions& options = {});
// Named tensors already in memory (a .bin's state dict); `source` names them in messages.
LoadReport load_weights(torch::nn::Module& model, const NamedTensors& tensors,
                        const std::string& source, const LoadOptions& options = {});
// A weights file: .bin/.pt/.pth (is_torch_bin) read by models/io/torch_bin.h, else safetensors.
LoadReport load_weights(torch::nn::Module& model, const std::string& weights_path,
                        const LoadOptions& options = {});
// Whether `path` names a torch.save file (.bin, .pt, .pth) rather than a safetensors file.
bool is_torch_bin(const std::string& path);

// config.json + weights -> a UnilmModel in eval() mode with the given heads. The report (when
// given) lists missing/unexpected keys; with heads the checkpoint lacks (a new classifier) the
// heads keep the init of UnilmModel::init_task_heads().
UnilmModel load_checkpoint(const std::string& path, const UnilmHeads& heads = {},
                           LoadReport* report = nullptr, const LoadOptions& options = {});

// The tensors save_checkpoint writes, in order, under HF names.
std::vector<std::pair<std::string, torch::Tensor>> checkpoint_tensors(torch::nn::Module& model,
                                                                      bool store_tied_decoder);
// Writes the weights only.
void save_weights(torch::nn::Module& model, const std::string& safetensors_path,
                  bool store_tied_decoder = false);
// Writes DIR/config.json, DIR/model.safetensors (and DIR/vocab.txt); creates DIR.
void save_checkpoint(UnilmModel& model, const std::string& dir, const SaveOptions& options = {});

}  // namespace unieval::models
