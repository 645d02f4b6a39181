#include "results/compare.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "results/html_report.h"

namespace unieval::results {

const char* to_string(CompareStatus s) {
  switch (s) {
    case CompareStatus::kSame:
      return "same";
    case CompareStatus::kImproved:
      return "improved";
    case CompareStatus::kWithinTolerance:
      return "within tolerance";
    case CompareStatus::kWithinInterval:
      return "within interval";
    case CompareStatus::kRegression:
      return "REGRESSION";
    case CompareStatus::kMissing:
      return "MISSING";
    case CompareStatus::kNew:
      return "new";
  }
  return "?";
}

std::map<std::string, double> parse_tolerances(const nlohmann::json& j, const std::string& source) {
  if (!j.is_object())
    throw InputError(source, 0,
                     "tolerances must be a JSON object {\"score\": allowed worsening, \"*\": ...}");
  std::map<std::string, double> out;
  for (const auto& [k, v] : j.items()) {
    if (!v.is_number() || !(v.get<double>() >= 0))
      throw InputError(source, 0, "tolerances." + k + ": must be a number >= 0");
    out[k] = v.get<double>();
  }
  return out;
}

Comparison compare_runs(const RunResult& base, const RunResult& cur, const CompareOptions& opts) {
  std::map<std::string, double> file_tol;
  if (base.extra.contains("tolerances"))
    file_tol = parse_tolerances(nlohmann::json::parse(base.extra["tolerances"].dump()),
                                "baseline \"tolerances\"");
  for (const std::map<std::string, double>* tols :
       {&opts.tolerance, static_cast<const std::map<std::string, double>*>(&file_tol)})
    for (const auto& [name, tol] : *tols) {
      if (name == "*") continue;
      if (!base.score(name) && !cur.score(name))
        throw InputError("tolerance " + name + "=...: neither result has a score named '" + name +
                         "'");
      if (!(tol >= 0)) throw InputError("tolerance " + name + ": must be >= 0");
    }
  Comparison c;
  if (base.task != cur.task)
    c.incompatibilities.push_back("task differs: '" + base.task + "' vs '" + cur.task + "'");
  if (base.split != cur.split)
    c.incompatibilities.push_back("split differs: '" + base.split + "' vs '" + cur.split + "'");
  if (base.examples != cur.examples)
    c.incompatibilities.push_back("example count differs: " + std::to_string(base.examples) +
                                  " vs " + std::to_string(cur.examples) +
                                  " (a subset or another set is not the same evaluation)");
  if (base.data_sha256.empty() || cur.data_sha256.empty()) {
    std::string who = base.data_sha256.empty() && cur.data_sha256.empty() ? "neither result records"
                      : base.data_sha256.empty() ? "the baseline does not record"
                                                 : "the current result does not record";
    c.incompatibilities.push_back("data identity unknown: " + who +
                                  " data.sha256 (write results with `unieval eval`/`unieval run`, "
                                  "which hash files and folders)");
  } else if (base.data_sha256 != cur.data_sha256) {
    c.incompatibilities.push_back("data differs: sha256 " + base.data_sha256.substr(0, 12) + "… (" +
                                  base.data_path + ") vs " + cur.data_sha256.substr(0, 12) + "… (" +
                                  cur.data_path + ")");
  }
  for (const auto& m : base.metrics) {
    const MetricSignature* o = cur.metric(m.id);
    if (!o)
      c.incompatibilities.push_back("metric '" + m.id + "' (" + m.signature +
                                    ") is not in the current result");
    else if (o->signature != m.signature)
      c.incompatibilities.push_back("metric '" + m.id + "' signature differs: '" + m.signature +
                                    "' vs '" + o->signature + "'");
  }
  for (const auto& m : cur.metrics)
    if (!base.metric(m.id))
      c.incompatibilities.push_back("metric '" + m.id + "' (" + m.signature +
                                    ") is not in the baseline");
  c.compatible = c.incompatibilities.empty();
  for (const auto& s : base.scores) {
    CompareRow row;
    row.name = s.name;
    row.unit = s.unit;
    row.baseline = s.value;
    row.tolerance = opts.default_tolerance;
    row.tolerance_from = "default";
    bool found = false;
    using Source = std::pair<const std::map<std::string, double>*, const char*>;
    for (const std::string& key : {s.name, std::string("*")}) {
      for (const Source& src :
           {Source(&opts.tolerance, "--tolerance"), Source(&file_tol, "baseline file")}) {
        const char* from = src.second;
        auto it = src.first->find(key);
        if (found || it == src.first->end()) continue;
        row.tolerance = it->second;
        row.tolerance_from = std::string(from) + (key == "*" ? " (*)" : "");
        found = true;
      }
    }
    const Score* o = cur.score(s.name);
    if (!o) {
      row.status = CompareStatus::kMissing;
      row.current = std::nan("");
      row.diff = std::nan("");
      c.regression = true;
      c.rows.push_back(row);
      continue;
    }
    row.current = o->value;
    row.diff = o->value - s.value;
    if (opts.by_ci) {
      const ConfidenceInterval* ci = s.ci ? &*s.ci : o->ci ? &*o->ci : nullptr;
      row.interval = ci ? "[" + format_value(ci->low, s.unit, 4) + ", " +
                              format_value(ci->high, s.unit, 4) + "]"
                        : "no interval in either result: judged by tolerance";
    }
    double worse = s.higher_is_better ? -row.diff : row.diff;
    double eps = 1e-12 * std::max(1.0, std::fabs(s.value));
    if (std::isnan(s.value) || std::isnan(o->value)) {
      // NaN (e.g. Pearson on constant input) equals only NaN.
      bool same = std::isnan(s.value) && std::isnan(o->value);
      row.status = same ? CompareStatus::kSame : CompareStatus::kRegression;
    } else if (std::fabs(row.diff) <= eps) {
      row.status = CompareStatus::kSame;
    } else if (worse < 0) {
      row.status = CompareStatus::kImproved;
    } else if (worse <= row.tolerance + eps) {
      row.status = CompareStatus::kWithinTolerance;
    } else if (opts.by_ci && s.ci && o->value >= s.ci->low && o->value <= s.ci->high) {
      row.status = CompareStatus::kWithinInterval;
      row.interval += ": current inside the baseline's interval";
    } else if (opts.by_ci && !s.ci && o->ci && s.value >= o->ci->low && s.value <= o->ci->high) {
      row.status = CompareStatus::kWithinInterval;
      row.interval += ": baseline inside the current's interval";
    } else {
      row.status = CompareStatus::kRegression;
    }
    if (row.status == CompareStatus::kRegression) c.regression = true;
    c.rows.push_back(row);
  }
  for (const auto& s : cur.scores) {
    if (base.score(s.name)) continue;
    CompareRow row;
    row.name = s.name;
    row.unit = s.unit;
    row.baseline = std::nan("");
    row.current = s.value;
    row.diff = std::nan("");
    row.status = CompareStatus::kNew;
    c.rows.push_back(row);
  }
  return c;
}

std::string render_comparison(const Comparison& c, const RunResult& base, const RunResult& cur,
                              TableFormat format) {
  Grid g;
  g.caption = base.task + (base.split.empty() ? "" : " (" + base.split + ")") + ": " +
              (base.system.empty() ? "baseline" : base.system) + " → " +
              (cur.system.empty() ? "current" : cur.system);
  bool intervals = std::any_of(c.rows.begin(), c.rows.end(),
                               [](const CompareRow& r) { return !r.interval.empty(); });
  g.header = {"score", "baseline", "current", "diff", "tolerance", "status"};
  g.numeric = {false, true, true, true, true, false};
  if (intervals) {
    g.header.push_back("interval");
    g.numeric.push_back(false);
  }
  for (const auto& r : c.rows) {
    auto f = [&](double v) {
      return std::isnan(v) ? std::string("–") : format_value(v, r.unit, 4);
    };
    std::string diff =
        std::isnan(r.diff) ? "–" : (r.diff > 0 ? "+" : "") + format_value(r.diff, r.unit, 4);
    g.rows.push_back({r.name, f(r.baseline), f(r.current), diff,
                      format_value(r.tolerance, r.unit, 4) +
                          (r.tolerance_from == "default" ? "" : " (" + r.tolerance_from + ")"),
                      to_string(r.status)});
    if (intervals) g.rows.back().push_back(r.interval);
    bool bad = r.status == CompareStatus::kRegression || r.status == CompareStatus::kMissing;
    g.bold.push_back({false, false, false, bad, false, bad, false});
  }
  for (const auto& why : c.incompatibilities) g.footer.push_back("INCOMPATIBLE: " + why);
  if (c.compatible) {
    for (const auto& m : base.metrics) g.footer.push_back("signature " + m.id + ": " + m.signature);
    g.footer.push_back(c.regression ? "result: REGRESSION" : "result: ok");
  } else {
    g.footer.push_back("result: INCOMPATIBLE (scores not compared)");
  }
  std::string out = render_grid(g, format);
  if (format == TableFormat::kHtml) out = html_page("unieval compare: " + g.caption, out);
  return out;
}

}  // namespace unieval::results
