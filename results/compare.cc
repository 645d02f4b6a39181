#include "results/compare.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace unieval::results {

const char* to_string(CompareStatus s) {
  switch (s) {
    case CompareStatus::kSame: return "same";
    case CompareStatus::kImproved: return "improved";
    case CompareStatus::kWithinTolerance: return "within tolerance";
    case CompareStatus::kRegression: return "REGRESSION";
    case CompareStatus::kMissing: return "MISSING";
    case CompareStatus::kNew: return "new";
  }
  return "?";
}

Comparison compare_runs(const RunResult& base, const RunResult& cur, const CompareOptions& opts) {
  for (const auto& [name, tol] : opts.tolerance) {
    if (name == "*") continue;
    if (!base.score(name) && !cur.score(name))
      throw InputError("--tolerance " + name + "=...: neither result has a score named '" + name + "'");
    if (!(tol >= 0)) throw InputError("--tolerance " + name + ": must be >= 0");
  }
  Comparison c;
  if (base.task != cur.task)
    c.incompatibilities.push_back("task differs: '" + base.task + "' vs '" + cur.task + "'");
  if (base.split != cur.split)
    c.incompatibilities.push_back("split differs: '" + base.split + "' vs '" + cur.split + "'");
  if (!base.data_sha256.empty() && !cur.data_sha256.empty() && base.data_sha256 != cur.data_sha256)
    c.incompatibilities.push_back("data differs: sha256 " + base.data_sha256.substr(0, 12) + "… vs " +
                                  cur.data_sha256.substr(0, 12) + "…");
  for (const auto& m : base.metrics) {
    const MetricSignature* o = cur.metric(m.id);
    if (o && o->signature != m.signature)
      c.incompatibilities.push_back("metric '" + m.id + "' signature differs: '" + m.signature +
                                    "' vs '" + o->signature + "'");
  }
  c.compatible = c.incompatibilities.empty();
  for (const auto& s : base.scores) {
    CompareRow row;
    row.name = s.name;
    row.unit = s.unit;
    row.baseline = s.value;
    auto it = opts.tolerance.find(s.name);
    if (it == opts.tolerance.end()) it = opts.tolerance.find("*");
    row.tolerance = it != opts.tolerance.end() ? it->second : opts.default_tolerance;
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
  g.header = {"score", "baseline", "current", "diff", "tolerance", "status"};
  g.numeric = {false, true, true, true, true, false};
  for (const auto& r : c.rows) {
    auto f = [&](double v) { return std::isnan(v) ? std::string("–") : format_value(v, r.unit, 4); };
    std::string diff = std::isnan(r.diff) ? "–" : (r.diff > 0 ? "+" : "") + format_value(r.diff, r.unit, 4);
    g.rows.push_back({r.name, f(r.baseline), f(r.current), diff, format_value(r.tolerance, r.unit, 4),
                      to_string(r.status)});
    bool bad = r.status == CompareStatus::kRegression || r.status == CompareStatus::kMissing;
    g.bold.push_back({false, false, false, bad, false, bad});
  }
  for (const auto& why : c.incompatibilities) g.footer.push_back("INCOMPATIBLE: " + why);
  if (c.compatible) {
    for (const auto& m : base.metrics) g.footer.push_back("signature " + m.id + ": " + m.signature);
    g.footer.push_back(c.regression ? "result: REGRESSION" : "result: ok");
  } else {
    g.footer.push_back("result: INCOMPATIBLE (scores not compared)");
  }
  return render_grid(g, format);
}

}  // namespace unieval::results
