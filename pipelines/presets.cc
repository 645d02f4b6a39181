#include "pipelines/presets.h"

#include "core/error.h"
#include "pipelines/nlu_options.h"
#include "pipelines/seq2seq.h"

namespace unieval::pipelines {

std::set<std::string> train_option_keys() { return unieval::fields::keys<models::TrainOptions>(); }

std::set<std::string> preset_train_keys(const tasks::Preset& preset) {
  std::set<std::string> keys = train_option_keys();
  if (preset.seq2seq) return keys;
  for (const auto& k : unieval::fields::keys<NluRunOptions>()) keys.insert(k);
  keys.insert("lm_coef");  // GPT's (pipelines/run_gpt.cc apply_gpt_preset)
  return keys;
}

ModelPreset resolve_preset(const tasks::Preset& preset) {
  ModelPreset p;
  p.data = &preset;
  // Strict: a misspelt key is an InputError (an understanding recipe's keys are read by
  // NluRunOptions and GPT's options too).
  p.train.update_from_json(preset.train, "preset " + preset.name + " train",
                           preset_train_keys(preset));
  p.decode = search_from_json(preset.decode, "preset " + preset.name + " decode");
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
