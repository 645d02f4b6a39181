#include "pipelines/presets.h"

#include "core/error.h"
#include "pipelines/nlu_options.h"
#include "pipelines/seq2seq.h"

namespace unieval::pipelines {

std::set<std::string> train_option_keys() {
  // TrainOptions::to_json writes some keys only when set: write them all (every optional key on).
  models::TrainOptions t;
  t.no_train = true;
  t.skip_nonfinite = true;
  t.arch = "ernie-gen";
  t.data.target_bos = true;
  std::set<std::string> keys;
  const nlohmann::ordered_json j = t.to_json();
  for (auto it = j.begin(); it != j.end(); ++it) keys.insert(it.key());
  return keys;
}

std::set<std::string> preset_train_keys(const tasks::Preset& preset) {
  std::set<std::string> keys = train_option_keys();
  if (preset.seq2seq) return keys;
  for (const auto& k : unieval::fields::keys<NluRunOptions>()) keys.insert(k);
  keys.insert("lm_coef");  // GPT's (pipelines/run_gpt.cc apply_gpt_preset)
  return keys;
}

void check_keys(const nlohmann::json& j, const std::set<std::string>& known,
                const std::string& source) {
  if (!j.is_object()) return;
  for (auto it = j.begin(); it != j.end(); ++it)
    if (!known.count(it.key())) throw InputError(source, 0, "unknown key '" + it.key() + "'");
}

ModelPreset resolve_preset(const tasks::Preset& preset) {
  ModelPreset p;
  p.data = &preset;
  check_keys(preset.train, preset_train_keys(preset),
             "preset " + preset.name + " train");  // a misspelt key
  p.train.update_from_json(preset.train, "preset " + preset.name);
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
