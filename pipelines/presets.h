#pragma once
// A paper preset (tasks/presets.h, plain data) resolved onto the model's option structs: the
// preset's "train" JSON applied to default models::TrainOptions, its "decode" JSON to default
// models::SearchOptions. `unieval finetune --preset` and `unieval run --preset` start from this
// and apply their flags on top.
//
//   ModelPreset p = resolve_preset("gigaword");   // InputError when unknown
//   FinetuneOptions f;  f.train = p.train;  f.decode = p.decode;  f.dropout = p.dropout;
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>

#include "models/decoding/search.h"
#include "models/training/trainer.h"
#include "tasks/presets.h"

namespace unieval::pipelines {

struct ModelPreset {
  const tasks::Preset* data = nullptr;  // the preset as published data (name, task, source, note)
  models::TrainOptions train;           // defaults + the preset's training options
  models::SearchOptions decode;         // defaults + the preset's decoding options
  std::optional<double> dropout;        // hidden/attention dropout (unset: the checkpoint's)
};

// InputError for an unknown name (the message lists the known ones).
ModelPreset resolve_preset(const std::string& name);
ModelPreset resolve_preset(const tasks::Preset& preset);

// The keys a preset's "train" object may hold for a generation recipe (TrainOptions' fields,
// models/training/trainer.h); resolve_preset reads it strictly, so a misspelt key is an
// InputError naming the preset and the key. Understanding recipes also take NluRunOptions' keys
// (pipelines/run_nlu.cc apply_nlu_preset) and GPT's lm_coef.
std::set<std::string> train_option_keys();
// train_option_keys(), and for an understanding recipe NluRunOptions' keys and lm_coef.
std::set<std::string> preset_train_keys(const tasks::Preset& preset);

}  // namespace unieval::pipelines
