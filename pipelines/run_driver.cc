#include "pipelines/run_driver.h"

#include <algorithm>

#include "core/error.h"
#include "core/io.h"
#include "models/io/run_dir.h"
#include "results/curves.h"
#include "results/sha256.h"
#include "tasks/presets.h"

namespace unieval::pipelines {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

namespace {

void write_manifest(const RunPaths& paths, DataManifest m) {
  std::sort(m.files.begin(), m.files.end());
  m.files.erase(std::unique(m.files.begin(), m.files.end()), m.files.end());
  ojson files = ojson::array();
  for (const auto& f : m.files)
    files.push_back({{"path", abs_path(f)}, {"sha256", results::sha256_path(f)}});
  ojson j;
  j["files"] = files;
  j["reader"] = m.reader;
  j["train_examples"] = m.train_examples;
  if (m.dev_examples) j["dev_examples"] = *m.dev_examples;
  j["eval_examples"] = m.eval_examples;
  if (m.dev_examples) j["dev_split"] = m.dev_split;
  core::write_file_atomic(paths.manifest.string(), j.dump(2) + "\n");
}

// The run info every family records (the family adds its own fields after these).
ojson common_info(const RunStages& family, const RunOptions& o, const RunPaths& paths,
                  const ojson& manifest) {
  ojson info;
  info["request"] = family.request();
  if (const tasks::Preset* p = o.preset.empty() ? nullptr : tasks::find_preset(o.preset)) {
    info["preset_source"] = p->source;
    info["preset_unstated"] = p->unstated;
    ojson peo = ojson::object();
    for (const auto& [k, v] : p->eval_options) peo[k] = v;
    info["preset_eval_options"] = peo;
  }
  const std::string weights = family.model_weights();
  info["model_sha256"] = weights.empty() ? std::string() : results::sha256_file(weights);
  info["data_files"] = manifest["files"];
  info["reader"] = manifest["reader"];
  info["train_examples"] = manifest["train_examples"];
  if (manifest.contains("dev_examples")) info["dev_examples"] = manifest["dev_examples"];
  info["eval_examples"] = manifest["eval_examples"];
  if (!family.trains()) return info;
  const ojson state =
      ojson::parse(core::read_file((paths.run / "checkpoint" / "trainer_state.json").string()));
  ojson tr;
  tr["steps"] = state.value("step", int64_t{0});
  tr["total_steps"] = state.value("total_steps", int64_t{0});
  if (state.contains("best_dev_loss")) {
    tr["best_dev_loss"] = state["best_dev_loss"];
    tr["best_step"] = state["best_step"];
    tr["early_stopped"] = state.value("early_stopped", false);
  }
  info["train"] = tr;
  info["checkpoint"] = family.checkpoint_used();
  info["checkpoint_sha256"] = results::sha256_file(
      (paths.run / family.checkpoint_used() / models::kRunWeightsFile).string());
  return info;
}

}  // namespace

RunOutcome drive_run(RunStages& family, const RunOptions& o, const RunRanks& ranks,
                     std::chrono::steady_clock::time_point t_start) {
  const RunPaths paths(o.out);
  RunOutcome outcome;
  // A run that was started before: the same options, or an error naming the first difference.
  if (auto done = open_run(paths.run, family.request(), ranks)) return *done;

  // ---- data: everything read and checked before RUN is written ----
  DataManifest manifest = family.read();
  if (!ranks.writer()) {
    // rank 0 writes the data stage
  } else if (!fs::exists(paths.manifest)) {
    fs::create_directories(paths.data);
    core::write_file_atomic(paths.request.string(), family.request().dump(2) + "\n");
    family.write_splits(paths);
    write_manifest(paths, std::move(manifest));  // last: marks the stage done
  } else if (!fs::exists(paths.request)) {
    throw InputError(o.out, 0, "holds data/ but no request.json");
  }
  // RUN/eval holds outputs only, so a user may delete it to score a finished run again.
  if (ranks.writer()) fs::create_directories(paths.eval);
  family.write_references(paths, ranks.writer());
  ranks.sync();
  const ojson written = ojson::parse(core::read_file(paths.manifest.string()));
  outcome.stage = "data";

  // ---- train ----
  if (family.trains() && !models::RunDir(o.out).training_finished()) {
    outcome.stage = "train";
    if (!family.train(paths)) {
      outcome.finished = false;
      return outcome;
    }
  }
  family.before_predict(paths);
  ranks.sync();  // rank 0's last checkpoint (and best) are written

  // ---- predict ----
  const std::string predicted = family.predict(paths, ranks);
  if (!predicted.empty()) outcome.stage = predicted;
  if (!ranks.writer()) {  // rank 0 scores
    outcome.finished = true;
    return outcome;
  }

  // ---- score ----
  ojson own;
  results::RunResult r = family.score(paths, own);
  r.split = o.eval_split;
  r.data_path = abs_path(o.data);
  r.data_sha256 = results::sha256_path(o.data);  // a folder dataset too (compare checks it)
  if (family.reads_train()) {
    add_split_notes(r, o, family.trained_word());
  } else if (o.eval_limit > 0) {
    r.notes.push_back("eval split limited to its first " + std::to_string(o.eval_limit) +
                      " examples");
  }
  if (o.baselines) family.baselines(paths, r);
  ojson info = common_info(family, o, paths, written);
  for (auto it = own.begin(); it != own.end(); ++it) info[it.key()] = it.value();
  outcome = finish_run(std::move(r), info, paths.result.string(), t_start);
  // The training curves beside the result (`unieval plot --run RUN` draws them again).
  if (fs::exists(paths.run / "log.jsonl"))
    core::write_file_atomic(
        (paths.run / "curves.svg").string(),
        results::render_curves_svg(results::read_training_log((paths.run / "log.jsonl").string()),
                                   paths.run.string()));
  return outcome;
}

}  // namespace unieval::pipelines
