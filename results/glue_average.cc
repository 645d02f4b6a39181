#include "results/glue_average.h"

#include <cmath>
#include <map>

namespace unieval::results {

namespace {

struct TaskCol {
  const char* key;   // result task key
  const char* name;  // column
};
const TaskCol kTasks[] = {{"glue-cola", "CoLA"},       {"glue-sst2", "SST-2"},
                          {"glue-mrpc", "MRPC"},       {"glue-stsb", "STS-B"},
                          {"glue-qqp", "QQP"},         {"glue-mnli", "MNLI-m"},
                          {"glue-mnli-mm", "MNLI-mm"}, {"glue-qnli", "QNLI"},
                          {"glue-rte", "RTE"},         {"glue-wnli", "WNLI"}};

// The task's GLUE number (fraction), NaN when its scores are missing.
double task_value(const RunResult& r, const std::string& key) {
  auto get = [&](const char* n) {
    const Score* s = r.score(n);
    return s ? s->value : std::nan("");
  };
  if (key == "glue-cola") return get("mcc");
  if (key == "glue-mrpc" || key == "glue-qqp") return (get("f1") + get("accuracy")) / 2;
  if (key == "glue-stsb") return (get("pearson") + get("spearman")) / 2;
  return get("accuracy");
}

}  // namespace

std::vector<RunResult> glue_average_rows(const std::vector<RunResult>& runs) {
  // (system, split) -> task -> value, in first-seen order of the rows.
  std::vector<std::pair<std::string, std::string>> order;
  std::map<std::pair<std::string, std::string>, std::map<std::string, double>> values;
  for (const auto& r : runs) {
    bool glue = false;
    for (const auto& t : kTasks) glue = glue || r.task == t.key;
    if (!glue) continue;
    const auto k = std::make_pair(r.system, r.split);
    if (!values.count(k)) order.push_back(k);
    values[k][r.task] = task_value(r, r.task);
  }
  std::vector<RunResult> out;
  for (const auto& k : order) {
    const auto& v = values[k];
    RunResult row;
    row.task = "glue-average";
    row.system = k.first;
    row.split = k.second;
    row.metrics.push_back(
        {"glue-average",
         "glue-average|per-task:glue-leaderboard|mnli:mean(m,mm)|ax:excluded|x100",
         {}});
    double sum = 0;
    int n = 0;
    for (const auto& t : kTasks) {
      auto it = v.find(t.key);
      if (it == v.end() || std::isnan(it->second)) continue;
      row.scores.push_back(
          {t.name, it->second * 100, "glue-average", "percent", true, std::nullopt});
    }
    for (const auto& t : kTasks) {
      const std::string key = t.key;
      if (key == "glue-mnli-mm" && v.count("glue-mnli")) continue;  // MNLI counted once
      auto it = v.find(key);
      if (it == v.end() || std::isnan(it->second)) continue;
      double x = it->second;
      if (key == "glue-mnli" && v.count("glue-mnli-mm") && !std::isnan(v.at("glue-mnli-mm")))
        x = (x + v.at("glue-mnli-mm")) / 2;
      sum += x;
      ++n;
    }
    if (n == 0) continue;
    row.scores.push_back({"average", sum / n * 100, "glue-average", "percent", true, std::nullopt});
    row.scores.push_back({"tasks", double(n), "glue-average", "count", true, std::nullopt});
    row.examples = 0;
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace unieval::results
