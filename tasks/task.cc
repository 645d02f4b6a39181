#include "tasks/task.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <sstream>

#include "core/error.h"
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

}  // namespace unieval::tasks
