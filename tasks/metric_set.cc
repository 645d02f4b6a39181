#include "tasks/metric_set.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.h"

namespace unieval::tasks {

namespace {

metrics::ResourceHints hints_of(const TaskMetric& m) {
  metrics::ResourceHints h = m.hints;
  h.skip = "--skip-metric " + m.call.metric;
  return h;
}

metrics::MetricRun add(TaskOutput& out, const TaskMetric& m, metrics::MetricRun run) {
  if (run.objects.empty()) throw std::logic_error("metric " + m.call.metric + " emitted nothing");
  const nlohmann::ordered_json& j = run.objects.front();
  std::string sig = m.signature.empty() ? j.at("signature").get<std::string>() : m.signature;
  out.result.metrics.push_back({m.id, sig + m.signature_suffix, m.options});
  ResampledScores rs;
  rs.items = run.items;
  rs.fn = run.resample;
  for (const auto& f : m.scores) {
    using ptr = nlohmann::ordered_json::json_pointer;
    std::optional<results::ConfidenceInterval> ci;
    if (!f.ci.empty()) {
      ci = m.ci;
      ci->low = json_number(j.at(ptr(f.ci + "/0")));
      ci->high = json_number(j.at(ptr(f.ci + "/1")));
    }
    out.result.scores.push_back(
        {f.name, json_number(j.at(ptr(f.pointer))), m.id, f.unit, true, ci});
    if (f.resample.empty() || !run.resample) continue;
    auto it = std::find(run.value_names.begin(), run.value_names.end(), f.resample);
    if (it != run.value_names.end())
      rs.scores[f.name] = static_cast<size_t>(it - run.value_names.begin());
  }
  if (!rs.scores.empty()) out.resampled.push_back(std::move(rs));
  return run;
}

}  // namespace

bool skipped(const EvalRequest& req, const TaskMetric& m) {
  return std::find(req.skip_metrics.begin(), req.skip_metrics.end(), m.call.metric) !=
         req.skip_metrics.end();
}

std::string skip_note(const TaskMetric& m) {
  return m.call.metric + " left out at the user's request (--skip-metric " + m.call.metric +
         "): not the task's complete official metric set";
}

void check_task_metric(const TaskMetric& m) {
  metrics::check_metric_resources(m.call, hints_of(m));
}

metrics::MetricRun score_task_metric(TaskOutput& out, const TaskMetric& m,
                                     const std::vector<std::string>& hyps,
                                     const std::vector<std::vector<std::string>>& refs_by_segment,
                                     const EvalRequest& req) {
  return add(out, m,
             metrics::run_metric(m.call, hyps, refs_by_segment, hints_of(m), req.bootstrap > 0));
}

metrics::MetricRun score_task_metric(TaskOutput& out, const TaskMetric& m,
                                     const core::Corpus& corpus, const EvalRequest& req) {
  return add(out, m, metrics::run_metric(m.call, corpus, hints_of(m), req.bootstrap > 0));
}

double json_number(const nlohmann::ordered_json& v) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
    if (s == "Infinity") return std::numeric_limits<double>::infinity();
    if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
  }
  if (v.is_null()) return std::numeric_limits<double>::quiet_NaN();
  throw std::logic_error("metric field is not a number: " + v.dump());
}

}  // namespace unieval::tasks
