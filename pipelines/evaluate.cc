#include "pipelines/evaluate.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "core/error.h"
#include "metrics/bootstrap.h"
#include "results/sha256.h"
#include "tasks/diagnostics.h"
#include "tasks/metric_set.h"

namespace unieval::pipelines {

results::ConfidenceInterval bootstrap_mean_ci(const std::vector<double>& values, int resamples,
                                              unsigned long long seed, double level, double scale) {
  results::ConfidenceInterval ci;
  ci.level = level;
  ci.method = "bootstrap-percentile";
  ci.resamples = resamples;
  ci.seed = seed;
  if (values.empty() || resamples <= 0) return ci;
  metrics::BootstrapOptions o;
  o.resamples = resamples;
  o.seed = seed;
  o.confidence = level;
  o.draw = metrics::BootstrapDraw::kUniformInt;
  metrics::BootstrapInterval b =
      metrics::bootstrap_ci(values.size(), metrics::mean_score_fn(values, scale), o)[0];
  ci.low = b.low;
  ci.high = b.high;
  return ci;
}

namespace {

const tasks::TaskAdapter& checked_task(const tasks::EvalRequest& req) {
  const tasks::TaskAdapter* task = tasks::find_task(req.task);
  if (!task) {
    std::ostringstream known;
    for (const auto& t : tasks::task_registry()) known << " " << t.info.name;
    throw InputError("unknown task '" + req.task + "'; known:" + known.str());
  }
  for (const auto& [k, v] : req.options) {
    const auto& key = k;  // a lambda may not capture a structured binding (C++17; clang)
    bool ok = std::any_of(task->info.options.begin(), task->info.options.end(),
                          [&](const auto& o) { return o.first == key; });
    if (!ok) {
      std::string known;
      for (const auto& o : task->info.options) known += " " + o.first;
      throw InputError("--option " + k + ": task '" + req.task + "' has no such option" +
                       (known.empty() ? " (it takes none)" : "; known:" + known));
    }
  }
  return *task;
}

std::string pred_stem(const std::string& pred) {
  std::string stem = std::filesystem::path(pred).filename().string();
  for (const char* ext : {".gz", ".json", ".txt", ".jsonl", ".tsv", ".hypo"}) {
    std::string e = ext;
    if (stem.size() > e.size() && stem.compare(stem.size() - e.size(), e.size(), e) == 0)
      stem.resize(stem.size() - e.size());
  }
  return stem;
}

metrics::BootstrapOptions bootstrap_options(const tasks::EvalRequest& req) {
  metrics::BootstrapOptions o;
  o.resamples = req.bootstrap;
  o.seed = req.seed;
  o.confidence = req.ci_level;
  o.draw = metrics::BootstrapDraw::kUniformInt;
  return o;
}

// The paired test of every resampled score of `a` (the system) against `b` (the baseline, read
// from `baseline_pred`), on the same resamples.
nlohmann::ordered_json paired_tests(const tasks::EvalRequest& req, const tasks::TaskOutput& a,
                                    const tasks::TaskOutput& b, const std::string& baseline_pred) {
  const metrics::BootstrapOptions o = bootstrap_options(req);
  nlohmann::ordered_json scores = nlohmann::ordered_json::array();
  // The scores as the results report them (a resampling function on all items may differ from
  // the official computation in the last bits: coco ROUGE-L is numpy's mean).
  auto add = [&](const std::string& name, const metrics::PairedBootstrap& p) {
    const results::Score* sa = a.result.score(name);
    const results::Score* sb = b.result.score(name);
    nlohmann::ordered_json t;
    t["score"] = name;
    t["system"] = sa ? sa->value : p.system;
    t["baseline"] = sb ? sb->value : p.baseline;
    t["delta"] = t["system"].get<double>() - t["baseline"].get<double>();
    t["p_value"] = p.p_value;
    scores.push_back(std::move(t));
  };
  for (const auto& s : a.result.scores) {
    auto ia = a.mean_decomposable.find(s.name);
    auto ib = b.mean_decomposable.find(s.name);
    if (ia != a.mean_decomposable.end() && ib != b.mean_decomposable.end() && !ia->second.empty()) {
      if (ia->second.size() != ib->second.size())
        throw InputError(baseline_pred, 0,
                         "the baseline has " + std::to_string(ib->second.size()) +
                             " examples of '" + s.name + "', the system " +
                             std::to_string(ia->second.size()) + ": not the same examples");
      const double scale = s.unit == "percent" ? 100.0 : 1.0;
      add(s.name,
          metrics::paired_bootstrap(ia->second.size(), metrics::mean_score_fn(ia->second, scale),
                                    metrics::mean_score_fn(ib->second, scale), o)[0]);
      continue;
    }
    for (size_t k = 0; k < a.resampled.size() && k < b.resampled.size(); ++k) {
      const tasks::ResampledScores& ra = a.resampled[k];
      const tasks::ResampledScores& rb = b.resampled[k];
      auto it = ra.scores.find(s.name);
      if (it == ra.scores.end() || ra.items == 0) continue;
      if (ra.items != rb.items || !rb.scores.count(s.name))
        throw InputError(baseline_pred, 0,
                         "the baseline's '" + s.name + "' is over " + std::to_string(rb.items) +
                             " items, the system's over " + std::to_string(ra.items) +
                             ": not the same examples");
      add(s.name, metrics::paired_bootstrap(ra.items, ra.fn, rb.fn, o)[it->second]);
      break;
    }
  }
  return scores;
}

// The result's "paired_bootstrap" object of the system `a` against the baseline `b`.
nlohmann::ordered_json paired_object(const tasks::EvalRequest& req, const tasks::TaskOutput& a,
                                     const tasks::TaskOutput& b, const std::string& name,
                                     const std::string& baseline_pred) {
  nlohmann::ordered_json p;
  p["baseline"] = name;
  p["baseline_pred"] = baseline_pred;
  p["baseline_sha256"] =
      std::filesystem::is_regular_file(baseline_pred) ? results::sha256_file(baseline_pred) : "";
  p["resamples"] = req.bootstrap;
  p["seed"] = req.seed;
  p["method"] =
      "paired bootstrap (Koehn 2004, sacreBLEU's p-value), the same resamples for both systems";
  p["scores"] = paired_tests(req, a, b, baseline_pred);
  return p;
}

}  // namespace

void check_eval_resources(const tasks::EvalRequest& req) {
  const tasks::TaskAdapter& task = checked_task(req);
  std::vector<tasks::TaskMetric> set;
  if (task.metrics) set = task.metrics(req);
  for (const auto& name : req.skip_metrics) {
    bool known = std::any_of(set.begin(), set.end(),
                             [&](const tasks::TaskMetric& m) { return m.call.metric == name; });
    if (!known) {
      std::string names;
      for (const auto& m : set) names += " " + m.call.metric;
      throw InputError(
          "--skip-metric " + name + ": task '" + req.task + "' scores no such metric" +
          (names.empty() ? " (its official evaluator is one piece)" : "; its metrics:" + names));
    }
  }
  for (const auto& m : set)
    if (!tasks::skipped(req, m)) tasks::check_task_metric(m);
}

results::RunResult evaluate(const tasks::EvalRequest& req) {
  auto start = std::chrono::steady_clock::now();
  const tasks::TaskAdapter* task = &checked_task(req);
  if (req.data.empty()) throw InputError("--data PATH is required");
  if (req.pred.empty()) throw InputError("--pred FILE is required");
  if (!std::filesystem::exists(req.data))
    throw InputError(req.data, 0, "no such file or directory");
  if (!std::filesystem::exists(req.pred))
    throw InputError(req.pred, 0, "no such file or directory");
  if (req.bootstrap < 0) throw InputError("--bootstrap must be >= 0");
  if (!(req.ci_level > 0 && req.ci_level < 1)) throw InputError("--ci-level must be in (0, 1)");
  if (!req.paired_pred.empty()) {
    if (req.bootstrap <= 0)
      throw InputError("--paired-pred needs --bootstrap N (the resamples of the paired test)");
    if (!std::filesystem::exists(req.paired_pred))
      throw InputError(req.paired_pred, 0, "no such file or directory");
  }

  check_eval_resources(req);

  tasks::TaskOutput out = task->run(req);
  results::RunResult& r = out.result;
  results::stamp_provenance(r);
  if (r.task.empty()) r.task = task->info.name;
  if (r.split.empty()) r.split = req.split.empty() ? task->info.default_split : req.split;
  if (r.system.empty()) {
    if (!req.system.empty()) {
      r.system = req.system;
    } else {
      r.system = pred_stem(req.pred);
    }
  }
  r.data_path = req.data;
  r.data_sha256 = results::sha256_path(req.data);  // a folder dataset too (compare checks it)
  r.pred_path = req.pred;
  r.pred_sha256 = std::filesystem::is_regular_file(req.pred) ? results::sha256_file(req.pred) : "";
  if (req.bootstrap > 0) {
    for (auto& s : r.scores) {
      auto it = out.mean_decomposable.find(s.name);
      if (it == out.mean_decomposable.end()) continue;
      double scale = s.unit == "percent" ? 100.0 : 1.0;
      s.ci = bootstrap_mean_ci(it->second, req.bootstrap, req.seed, req.ci_level, scale);
    }
    for (const auto& rs : out.resampled) {
      if (rs.items == 0) continue;
      const auto cis = metrics::bootstrap_ci(rs.items, rs.fn, bootstrap_options(req));
      for (auto& s : r.scores) {
        auto it = rs.scores.find(s.name);
        if (it == rs.scores.end()) continue;
        results::ConfidenceInterval ci;
        ci.level = req.ci_level;
        ci.method = "bootstrap-percentile";
        ci.resamples = req.bootstrap;
        ci.seed = req.seed;
        ci.low = cis[it->second].low;
        ci.high = cis[it->second].high;
        s.ci = ci;
      }
    }
  }
  if (!req.paired_pred.empty()) {
    tasks::EvalRequest base = req;
    base.pred = req.paired_pred;
    const tasks::TaskOutput b = task->run(base);
    r.extra["paired_bootstrap"] = paired_object(
        req, out, b, req.paired_system.empty() ? pred_stem(req.paired_pred) : req.paired_system,
        req.paired_pred);
  }
  // Generation tasks: what the outputs look like (tasks/diagnostics.h), warnings in the notes.
  if (!out.hypotheses.empty()) {
    const tasks::OutputDiagnostics d =
        tasks::diagnose_outputs(out.hypotheses, out.first_references);
    r.extra["diagnostics"] = tasks::to_json(d);
    for (const auto& w : tasks::diagnostic_warnings(d)) r.notes.push_back(w);
  }
  if (!req.per_example) r.per_example.clear();
  // The adapter options given (--option), so that `reproduce` can tell a result scored under other
  // metric settings than the paper's (none recorded = the adapter's defaults).
  if (!req.options.empty()) {
    nlohmann::ordered_json o = nlohmann::ordered_json::object();
    for (const auto& [k, v] : req.options) o[k] = v;
    r.extra["eval_options"] = o;
  }
  r.timings.total_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

nlohmann::ordered_json evaluate_baselines(const tasks::EvalRequest& req,
                                          const std::vector<BaselinePred>& baselines) {
  const tasks::TaskAdapter& task = checked_task(req);
  if (req.bootstrap < 0) throw InputError("--bootstrap must be >= 0");
  for (const std::string& f : {req.data, req.pred})
    if (!std::filesystem::exists(f)) throw InputError(f, 0, "no such file or directory");
  // The system once: with req.bootstrap > 0 its output holds the resampling functions.
  const tasks::TaskOutput sys = task.run(req);
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (const BaselinePred& b : baselines) {
    if (!std::filesystem::exists(b.pred)) throw InputError(b.pred, 0, "no such file or directory");
    tasks::EvalRequest breq = req;
    breq.pred = b.pred;
    if (b.options) breq.options = *b.options;
    const tasks::TaskOutput out = task.run(breq);
    nlohmann::ordered_json e;
    e["name"] = b.name;
    e["description"] = b.description;
    e["pred"] = b.pred;
    nlohmann::ordered_json summary = nlohmann::ordered_json::object();
    for (const auto& s : out.result.scores) summary[s.name] = s.value;  // NaN is written as null
    e["summary"] = std::move(summary);
    if (req.bootstrap > 0) e["paired_bootstrap"] = paired_object(req, sys, out, b.name, b.pred);
    all.push_back(std::move(e));
  }
  return all;
}

std::vector<std::string> baseline_warnings(const results::RunResult& r) {
  std::vector<std::string> out;
  if (!r.extra.contains("baselines") || !r.extra["baselines"].is_array()) return out;
  for (const auto& b : r.extra["baselines"]) {
    if (!b.is_object() || !b.contains("paired_bootstrap")) continue;
    const auto& p = b["paired_bootstrap"];
    if (!p.contains("scores") || !p["scores"].is_array()) continue;
    std::string lost;
    for (const auto& t : p["scores"]) {
      const std::string name = t.value("score", std::string());
      const results::Score* s = r.score(name);
      const bool higher = !s || s->higher_is_better;
      const double delta =
          t.contains("delta") && t["delta"].is_number() ? t["delta"].get<double>() : 0.0;
      const double pv =
          t.contains("p_value") && t["p_value"].is_number() ? t["p_value"].get<double>() : 1.0;
      if ((higher ? delta > 0 : delta < 0) && pv < kBaselineAlpha) continue;
      char buf[160];
      std::snprintf(buf, sizeof buf, "%s (delta %+.4g, p = %.3f)", name.c_str(), delta, pv);
      lost += (lost.empty() ? "" : ", ") + std::string(buf);
    }
    if (!lost.empty())
      out.push_back("the system does not beat baseline '" + b.value("name", std::string()) +
                    "' at p < 0.05 on " + lost);
  }
  return out;
}

std::vector<std::string> result_warnings(const results::RunResult& r) {
  std::vector<std::string> out;
  if (r.extra.contains("diagnostics"))
    out = tasks::diagnostic_warnings(
        tasks::diagnostics_from_json(nlohmann::json::parse(r.extra["diagnostics"].dump())));
  for (auto& w : baseline_warnings(r)) out.push_back(std::move(w));
  return out;
}

}  // namespace unieval::pipelines
