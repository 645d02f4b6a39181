#pragma once
// A paper preset (tasks/presets.h, plain data) resolved onto the model's option structs: the
// preset's "train" JSON applied to default models::TrainOptions, its "decode" JSON to default
// models::SearchOptions. `unieval finetune --preset` and `unieval run --preset` start from this
// and apply their flags on top.
//
//   ModelPreset p = resolve_preset("gigaword");   // InputError when unknown
//   FinetuneOptions f;  f.train = p.train;  f.decode = p.decode;  f.dropout = p.dropout;
#include <optional>
#include <string>

#include "models/search.h"
#include "models/trainer.h"
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

}  // namespace unieval::pipelines
