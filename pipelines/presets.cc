#include "pipelines/presets.h"

#include "core/error.h"
#include "pipelines/seq2seq.h"

namespace unieval::pipelines {

ModelPreset resolve_preset(const tasks::Preset& preset) {
  ModelPreset p;
  p.data = &preset;
  p.train.update_from_json(preset.train, "preset " + preset.name);
  p.decode = search_from_json(preset.decode);
  p.dropout = preset.dropout;
  return p;
}

ModelPreset resolve_preset(const std::string& name) {
  const tasks::Preset* preset = tasks::find_preset(name);
  if (!preset) {
    std::string known;
    for (const auto& p : tasks::presets()) known += " " + p.name;
    throw InputError("unknown preset '" + name + "'; known:" + known);
  }
  return resolve_preset(*preset);
}

}  // namespace unieval::pipelines
