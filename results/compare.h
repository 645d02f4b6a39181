#pragma once
// Regression gate over two RunResults (`unieval compare BASELINE.json CURRENT.json`).
//
//   Comparison c = compare_runs(base, cur, {{{"f1", 0.1}}});
//   if (!c.compatible) ...          // exit 2: different task/split/data or metric signatures
//   else if (c.regression) ...      // exit 1: a score got worse by more than its tolerance
//
// Compatibility (never silently compare different things): same task, same split, same data
// sha256 (when both runs record one), and for every metric id present in both runs the same
// signature. Each score of the baseline is then looked up in the current run:
//   worse by more than tolerance    -> kRegression   (also a score missing from the current run)
//   worse but within tolerance      -> kWithinTolerance
//   equal (|diff| <= 1e-12·max(1,|v|)) -> kSame
//   better                          -> kImproved
// "worse" follows Score::higher_is_better. Scores only in the current run are kNew.
//
// Options (CompareOptions):
//   tolerance          {}   score name -> allowed worsening in the score's own unit;
//                           the key "*" applies to every score without its own entry
//   default_tolerance  0    allowed worsening for scores with no entry
#include <map>
#include <string>
#include <vector>

#include "results/report.h"
#include "results/run_result.h"

namespace unieval::results {

struct CompareOptions {
  std::map<std::string, double> tolerance;  // score name (or "*") -> allowed worsening
  double default_tolerance = 0;             // when neither the name nor "*" is given
};

enum class CompareStatus { kSame, kImproved, kWithinTolerance, kRegression, kMissing, kNew };
const char* to_string(CompareStatus s);

struct CompareRow {
  std::string name;      // score name
  std::string unit;
  double baseline = 0, current = 0;
  double diff = 0;       // current - baseline
  double tolerance = 0;
  CompareStatus status = CompareStatus::kSame;
};

struct Comparison {
  bool compatible = true;
  std::vector<std::string> incompatibilities;  // why not (one line each)
  std::vector<CompareRow> rows;
  bool regression = false;  // any kRegression or kMissing
};

// InputError when a tolerance names a score that neither run has (a typo would silently pass).
Comparison compare_runs(const RunResult& baseline, const RunResult& current,
                        const CompareOptions& opts = {});

std::string render_comparison(const Comparison& c, const RunResult& baseline,
                              const RunResult& current, TableFormat format);

}  // namespace unieval::results
