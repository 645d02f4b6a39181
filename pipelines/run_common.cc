#include "pipelines/run_common.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "core/error.h"
#include "core/io.h"
#include "models/training/train_loop.h"
#include "pipelines/evaluate.h"
#include "results/run_result.h"
#include "tasks/nlu_tasks.h"

namespace unieval::pipelines {

namespace fs = std::filesystem;

MajorityLabel majority_label(const std::vector<int64_t>& labels) {
  std::map<int64_t, int64_t> counts;
  for (int64_t l : labels) ++counts[l];
  MajorityLabel m;
  for (const auto& [label, c] : counts) m.count = std::max(m.count, c);
  for (int64_t l : labels)  // ties: the label that occurs first
    if (counts[l] == m.count) {
      m.label = l;
      break;
    }
  return m;
}

GlueMajority glue_majority(const tasks::GlueSplit& train, const tasks::GlueSplit& eval) {
  const auto& rows = train.rows;
  GlueMajority g;
  if (eval.regression()) {
    for (const auto& r : rows) g.value += r.label;
    g.value = rows.empty() ? 0.0 : g.value / double(rows.size());
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", g.value);
    g.description = std::string("the mean score of the training split, ") + buf + " (" +
                    std::to_string(rows.size()) + " rows), for every example";
    return g;
  }
  std::vector<int64_t> labels;
  for (const auto& r : rows) labels.push_back(static_cast<int64_t>(r.label));
  const MajorityLabel m = majority_label(labels);
  g.value = static_cast<double>(m.label);
  g.description = "the most frequent label of the training split, '" +
                  eval.labels.at(static_cast<size_t>(m.label)) + "' (" + std::to_string(m.count) +
                  " of " + std::to_string(rows.size()) +
                  " rows; ties: the first to occur), for every example";
  return g;
}

int64_t rounded_median(std::vector<int64_t> counts) {
  if (counts.empty()) return 0;
  std::sort(counts.begin(), counts.end());
  const size_t m = counts.size() / 2;
  if (counts.size() % 2) return counts[m];
  return static_cast<int64_t>(std::llround(double(counts[m - 1] + counts[m]) / 2.0));
}

std::string abs_path(const std::string& p) {
  return p.empty() ? p : fs::absolute(p).lexically_normal().string();
}

void check_run_sources(const RunOptions& o) {
  if (o.data.empty()) throw InputError("--data is required");
  if (o.out.empty()) throw InputError("--out (the run directory) is required");
  if (o.model.empty() == o.model_config.empty())
    throw InputError("give exactly one of --model CKPT and --model-config CONFIG.json");
  if (!o.model_config.empty() && o.vocab.empty())
    throw InputError("--model-config needs --vocab VOCAB.txt");
}

std::string first_difference(const nlohmann::json& a, const nlohmann::json& b,
                             const std::string& path) {
  if (a.is_object() && b.is_object()) {
    for (auto it = a.begin(); it != a.end(); ++it) {
      if (!b.contains(it.key())) return path + it.key();
      auto d = first_difference(it.value(), b.at(it.key()), path + it.key() + ".");
      if (!d.empty()) return d;
    }
    for (auto it = b.begin(); it != b.end(); ++it)
      if (!a.contains(it.key())) return path + it.key();
    return "";
  }
  return a == b ? "" : (path.empty() ? std::string("(root)") : path.substr(0, path.size() - 1));
}

RunRanks join_run_ranks(const RunOptions& o) {
  RunRanks ranks;
  if (models::dist::env_from_environment().world_size == 1) return ranks;
  ranks.group = models::dist::init_from_env(o.backend, models::parse_device(o.device.device));
  models::check_accum_covers_ranks(o.finetune.accum);  // before RUN is written
  return ranks;
}

namespace {

std::optional<RunOutcome> open_run_dir(const fs::path& run, const nlohmann::ordered_json& request) {
  const std::string request_path = (run / "request.json").string();
  const std::string result_path = (run / "result.json").string();
  if (fs::exists(request_path)) {
    nlohmann::json before;
    try {
      before = nlohmann::json::parse(core::read_file(request_path));
    } catch (const nlohmann::json::exception& e) {
      throw InputError(request_path, 0, std::string("not valid JSON: ") + e.what());
    }
    const std::string diff = first_difference(nlohmann::json::parse(request.dump()), before);
    if (!diff.empty())
      throw InputError(request_path, 0,
                       "RUN was started with other options (first difference: " + diff +
                           "); use another --out or the same options");
    if (!fs::exists(result_path)) return std::nullopt;
    RunOutcome outcome;
    outcome.result = results::read_run_result(result_path);
    outcome.finished = true;
    outcome.reused = true;
    outcome.stage = "score";
    return outcome;
  }
  if (fs::exists(run) && !fs::is_directory(run))
    throw InputError(run.string(), 0, "exists and is not a directory");
  if (fs::exists(run) && !fs::is_empty(run))
    throw InputError(run.string(), 0,
                     "is not empty and holds no request.json (not a `unieval run` directory)");
  return std::nullopt;
}

}  // namespace

std::optional<RunOutcome> open_run(const fs::path& run, const nlohmann::ordered_json& request,
                                   const RunRanks& ranks) {
  auto outcome = open_run_dir(run, request);
  ranks.sync();
  return outcome;
}

void add_split_notes(results::RunResult& r, const RunOptions& o, const std::string& trained) {
  const tasks::SplitSpec ts = tasks::parse_split_spec(o.train_split),
                         es = tasks::parse_split_spec(o.eval_split);
  if (ts.name == es.name) {
    if (ts.sliced() && es.sliced())
      r.notes.push_back("train and eval are slices of the same split (" + o.train_split + ", " +
                        o.eval_split + ")");
    else
      r.notes.push_back(trained + " and evaluated on the same split (" + es.name + ")");
  }
  if (o.eval_limit > 0)
    r.notes.push_back("eval split limited to its first " + std::to_string(o.eval_limit) +
                      " examples");
}

RunOutcome finish_run(results::RunResult r, const nlohmann::ordered_json& info,
                      const std::string& result_path,
                      std::chrono::steady_clock::time_point t_start) {
  r.extra["run"] = info;
  r.timings.total_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  results::write_run_result(result_path, r);
  RunOutcome outcome;
  outcome.result = results::read_run_result(result_path);
  outcome.finished = true;
  outcome.stage = "score";
  return outcome;
}

results::RunResult score_predictions(const std::string& task, const std::string& gold,
                                     const std::string& pred, const std::string& split,
                                     const std::map<std::string, std::string>& options,
                                     const std::string& system) {
  tasks::EvalRequest req;
  req.task = task;
  req.data = gold;
  req.pred = pred;
  req.split = split;
  req.options = options;
  req.system = system;
  return evaluate(req);
}

}  // namespace unieval::pipelines
