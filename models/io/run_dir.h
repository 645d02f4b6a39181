#pragma once
// A run directory (models/training/trainer.h describes its layout): RunDir writes and reads its files, each
// atomically (a file: temp + rename; RUN/checkpoint and RUN/best: a whole directory swapped in),
// and the model weights inside it.
//
// Weights are safetensors (models/io/safetensors.h) under HF parameter names, so RUN/checkpoint is
// loadable as a `--model` directory and by Hugging Face (tied decoder weights are not stored; HF
// re-ties them).
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "models/nn/config.h"
#include "models/nn/transformer.h"
#include "models/training/optim.h"

namespace unieval::models {

// File name of the weights inside RUN/checkpoint/.
extern const char* const kRunWeightsFile;
// File name of the optimizer state (moments + step, safetensors) inside RUN/checkpoint/.
extern const char* const kRunOptimizerFile;

// Writes every parameter of model (HF names) to path (atomically).
void save_model_weights(torch::nn::Module& model, const std::string& path);
inline void save_model_weights(UnilmModel& model, const std::string& path) {
  save_model_weights(*model, path);
}
// Loads weights written by save_model_weights (or an HF checkpoint directory's weights file);
// a missing or mis-shaped parameter is an InputError naming the file.
void load_model_weights(torch::nn::Module& model, const std::string& path);
inline void load_model_weights(UnilmModel& model, const std::string& path) {
  load_model_weights(*model, path);
}

// The run directory layout above.
class RunDir {
 public:
  explicit RunDir(std::string path);
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const;  // RUN/name
  std::string checkpoint_dir() const;               // RUN/checkpoint
  std::string best_dir() const;                     // RUN/best (the best dev-loss weights)
  bool has_checkpoint() const;

  // Creates RUN (it may exist but must not hold a checkpoint unless overwrite) and writes
  // run.json, config.json, vocab.txt.
  void create(const nlohmann::ordered_json& run_info, const BertConfig& cfg,
              const std::string& vocab_text);
  // The same with any model's config.json object (GPT); no vocab.txt when vocab_text is empty
  // (the checkpoints then hold none either).
  void create(const nlohmann::ordered_json& run_info, const nlohmann::json& config_json,
              const std::string& vocab_text);
  nlohmann::json run_info() const;
  // Copies tokenizer files (the GPT BPE pair, by their own names) into RUN verbatim; every
  // checkpoint and RUN/best then carries them, so RUN/checkpoint is a complete --model folder.
  void add_tokenizer_files(const std::vector<std::string>& paths);

  // Writes the checkpoint directory as a whole (temp dir + rename; the previous one is replaced).
  void save_checkpoint(torch::nn::Module& model, const Optimizer& opt,
                       const nlohmann::ordered_json& state);
  // Loads weights and optimizer state; returns trainer_state.json.
  nlohmann::json load_checkpoint(torch::nn::Module& model, Optimizer& opt) const;
  // Writes RUN/best as a whole (weights, config.json, vocab.txt, best.json = info).
  void save_best(torch::nn::Module& model, const nlohmann::ordered_json& info);
  void save_best(UnilmModel& model, const nlohmann::ordered_json& info) { save_best(*model, info); }

  // checkpoint/trainer_state.json (models/training/train_loop.h writes it), null when there is none; and
  // whether it says training is over (every step done, or stopped early on the dev loss).
  nlohmann::json trainer_state() const;
  bool training_finished() const;

  // log.jsonl: append lines; on resume, drop lines whose step is beyond the checkpoint's.
  void append_log(const std::vector<nlohmann::ordered_json>& lines);
  void truncate_log(int64_t last_step);
  // The last line of log.jsonl whose step is `step`; null when there is none.
  nlohmann::ordered_json log_line(int64_t step) const;

 private:
  std::string path_;
};

}  // namespace unieval::models
