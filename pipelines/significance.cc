#include "pipelines/significance.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "metrics/bootstrap.h"

namespace unieval::pipelines {

namespace {

// The per-example values of `score` by example id; empty when the result has none.
std::map<std::string, double> values_of(const results::RunResult& r, const std::string& score) {
  std::map<std::string, double> out;
  for (const auto& e : r.per_example) {
    auto it = e.scores.find(score);
    if (it != e.scores.end()) out[e.id] = it->second;
  }
  return out;
}

// The factor (1 or 100) by which the per-example mean gives the score, or 0 when neither does.
double mean_scale(const std::map<std::string, double>& v, double score) {
  if (v.empty() || std::isnan(score)) return 0;
  double sum = 0;
  for (const auto& [id, x] : v) sum += x;
  const double mean = sum / double(v.size());
  for (double scale : {1.0, 100.0})
    if (std::fabs(mean * scale - score) <= 1e-6 * std::max(1.0, std::fabs(score))) return scale;
  return 0;
}

}  // namespace

std::vector<results::PairedTest> paired_significance(const std::vector<results::RunResult>& runs,
                                                     const SignificanceOptions& opts,
                                                     std::vector<std::string>* notes) {
  std::vector<results::PairedTest> tests;
  std::vector<std::pair<std::string, std::string>> groups;
  for (const auto& r : runs)
    if (std::find(groups.begin(), groups.end(), std::make_pair(r.task, r.split)) == groups.end())
      groups.push_back({r.task, r.split});
  for (const auto& [task, split] : groups) {
    std::vector<const results::RunResult*> members;
    for (const auto& r : runs)
      if (r.task == task && r.split == split) members.push_back(&r);
    if (members.size() < 2) continue;
    const std::string where = task + (split.empty() ? "" : " (" + split + ")");
    std::vector<std::string> names;
    for (const auto* r : members)
      for (const auto& s : r->scores)
        if (std::find(names.begin(), names.end(), s.name) == names.end()) names.push_back(s.name);
    std::vector<std::string> untested;
    for (const auto& name : names) {
      // The best system of the column, then each other one with the same examples.
      const results::RunResult* best = nullptr;
      for (const auto* r : members) {
        const results::Score* s = r->score(name);
        if (!s || std::isnan(s->value)) continue;
        const results::Score* b = best ? best->score(name) : nullptr;
        if (!b || (s->higher_is_better ? s->value > b->value : s->value < b->value)) best = r;
      }
      if (!best) continue;
      const auto bv = values_of(*best, name);
      const double bscale = mean_scale(bv, best->score(name)->value);
      if (bscale == 0) {
        untested.push_back(name);
        continue;
      }
      bool tested = false;
      for (const auto* r : members) {
        if (r == best || !r->score(name)) continue;
        const auto rv = values_of(*r, name);
        if (rv.size() != bv.size() || mean_scale(rv, r->score(name)->value) != bscale) continue;
        std::vector<double> a, b;
        bool same_ids = true;
        for (const auto& [id, x] : bv) {
          auto it = rv.find(id);
          if (it == rv.end()) {
            same_ids = false;
            break;
          }
          a.push_back(x);
          b.push_back(it->second);
        }
        if (!same_ids) continue;
        metrics::BootstrapOptions bo;
        bo.resamples = opts.resamples;
        bo.seed = opts.seed;
        auto pb = metrics::paired_bootstrap(a.size(), metrics::mean_score_fn(a, bscale),
                                            metrics::mean_score_fn(b, bscale), bo);
        results::PairedTest t;
        t.task = task;
        t.split = split;
        t.score = name;
        t.better = best->system;
        t.worse = r->system;
        t.p_value = pb.at(0).p_value;
        t.method = "paired bootstrap of the per-example mean (metrics/bootstrap.h), " +
                   std::to_string(bo.resamples) + " resamples, seed " + std::to_string(bo.seed) +
                   ", " + std::to_string(a.size()) + " examples";
        tests.push_back(t);
        tested = true;
      }
      if (!tested) untested.push_back(name);
    }
    if (notes && !untested.empty()) {
      std::string list;
      for (const auto& n : untested) list += (list.empty() ? "" : ", ") + n;
      notes->push_back(
          where + ": no significance test for " + list +
          " (needs per-example scores of the same examples in the results whose mean is the score; "
          "`unieval eval --per-example`)");
    }
  }
  return tests;
}

}  // namespace unieval::pipelines
