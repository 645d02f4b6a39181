#include "tasks/task.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <random>
#include <sstream>

#include "metrics/core/error.h"
#include "results/sha256.h"
#include "tasks/registry.h"

namespace unieval::tasks {

const std::vector<TaskAdapter>& task_registry() {
  static const std::vector<TaskAdapter> kTasks = build_task_registry();
  return kTasks;
}

const TaskAdapter* find_task(const std::string& name) {
  for (const auto& t : task_registry())
    if (t.info.name == name) return &t;
  return nullptr;
}

std::string option(const EvalRequest& req, const std::string& key, const std::string& def) {
  auto it = req.options.find(key);
  return it == req.options.end() ? def : it->second;
}

double option_double(const EvalRequest& req, const std::string& key, double def) {
  auto it = req.options.find(key);
  if (it == req.options.end()) return def;
  try {
    size_t used = 0;
    double v = std::stod(it->second, &used);
    if (used == it->second.size()) return v;
  } catch (const std::exception&) {
  }
  throw InputError("--option " + key + "=" + it->second + ": not a number");
}

results::ConfidenceInterval bootstrap_mean_ci(const std::vector<double>& values, int resamples,
                                              unsigned long long seed, double level, double scale) {
  results::ConfidenceInterval ci;
  ci.level = level;
  ci.method = "bootstrap-percentile";
  ci.resamples = resamples;
  ci.seed = seed;
  if (values.empty() || resamples <= 0) return ci;
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<size_t> pick(0, values.size() - 1);
  std::vector<double> means(static_cast<size_t>(resamples));
  for (auto& m : means) {
    double sum = 0;
    for (size_t i = 0; i < values.size(); ++i) sum += values[pick(rng)];
    m = scale * sum / static_cast<double>(values.size());
  }
  std::sort(means.begin(), means.end());
  auto quantile = [&](double q) {
    // Linear interpolation between order statistics (numpy's default "linear" method).
    double pos = q * static_cast<double>(means.size() - 1);
    size_t lo = static_cast<size_t>(std::floor(pos));
    size_t hi = std::min(lo + 1, means.size() - 1);
    return means[lo] + (pos - static_cast<double>(lo)) * (means[hi] - means[lo]);
  };
  ci.low = quantile((1 - level) / 2);
  ci.high = quantile((1 + level) / 2);
  return ci;
}

results::RunResult evaluate(const EvalRequest& req) {
  auto start = std::chrono::steady_clock::now();
  const TaskAdapter* task = find_task(req.task);
  if (!task) {
    std::ostringstream known;
    for (const auto& t : task_registry()) known << " " << t.info.name;
    throw InputError("unknown task '" + req.task + "'; known:" + known.str());
  }
  for (const auto& [k, v] : req.options) {
    bool ok = std::any_of(task->info.options.begin(), task->info.options.end(),
                          [&](const auto& o) { return o.first == k; });
    if (!ok) {
      std::string known;
      for (const auto& o : task->info.options) known += " " + o.first;
      throw InputError("--option " + k + ": task '" + req.task + "' has no such option" +
                       (known.empty() ? " (it takes none)" : "; known:" + known));
    }
  }
  if (req.data.empty()) throw InputError("--data PATH is required");
  if (req.pred.empty()) throw InputError("--pred FILE is required");
  if (!std::filesystem::exists(req.data)) throw InputError(req.data, 0, "no such file or directory");
  if (!std::filesystem::exists(req.pred)) throw InputError(req.pred, 0, "no such file or directory");
  if (req.bootstrap < 0) throw InputError("--bootstrap must be >= 0");
  if (!(req.ci_level > 0 && req.ci_level < 1)) throw InputError("--ci-level must be in (0, 1)");

  TaskOutput out = task->run(req);
  results::RunResult& r = out.result;
  results::stamp_provenance(r);
  if (r.task.empty()) r.task = task->info.name;
  if (r.split.empty()) r.split = req.split.empty() ? task->info.default_split : req.split;
  if (r.system.empty()) {
    if (!req.system.empty()) {
      r.system = req.system;
    } else {
      std::filesystem::path p(req.pred);
      std::string stem = p.filename().string();
      for (const char* ext : {".gz", ".json", ".txt", ".jsonl", ".tsv", ".hypo"}) {
        std::string e = ext;
        if (stem.size() > e.size() && stem.compare(stem.size() - e.size(), e.size(), e) == 0)
          stem.resize(stem.size() - e.size());
      }
      r.system = stem;
    }
  }
  r.data_path = req.data;
  r.data_sha256 = std::filesystem::is_regular_file(req.data) ? results::sha256_file(req.data) : "";
  r.pred_path = req.pred;
  r.pred_sha256 = std::filesystem::is_regular_file(req.pred) ? results::sha256_file(req.pred) : "";
  if (req.bootstrap > 0) {
    for (auto& s : r.scores) {
      auto it = out.mean_decomposable.find(s.name);
      if (it == out.mean_decomposable.end()) continue;
      double scale = s.unit == "percent" ? 100.0 : 1.0;
      s.ci = bootstrap_mean_ci(it->second, req.bootstrap, req.seed, req.ci_level, scale);
    }
  }
  if (!req.per_example) r.per_example.clear();
  r.timings.total_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace unieval::tasks
