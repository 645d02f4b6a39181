#pragma once
// Model weights inside a run directory (models/trainer.h describes the layout).
//
// Weights are safetensors (models/safetensors.h) under HF parameter names, so RUN/checkpoint is
// loadable as a `--model` directory and by Hugging Face (tied decoder weights are not stored; HF
// re-ties them).
#include <string>

#include "models/transformer.h"

namespace unieval::models {

// File name of the weights inside RUN/checkpoint/.
extern const char* const kRunWeightsFile;
// File name of the optimizer state (moments + step, safetensors) inside RUN/checkpoint/.
extern const char* const kRunOptimizerFile;

// Writes every parameter of model (HF names) to path (atomically).
void save_model_weights(torch::nn::Module& model, const std::string& path);
inline void save_model_weights(UnilmModel& model, const std::string& path) { save_model_weights(*model, path); }
// Loads weights written by save_model_weights (or an HF checkpoint directory's weights file);
// a missing or mis-shaped parameter is an InputError naming the file.
void load_model_weights(torch::nn::Module& model, const std::string& path);
inline void load_model_weights(UnilmModel& model, const std::string& path) { load_model_weights(*model, path); }

}  // namespace unieval::models
