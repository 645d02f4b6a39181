#pragma once
// Regression gate over two RunResults (`unieval compare BASELINE.json CURRENT.json`).
//
//   Comparison c = compare_runs(base, cur, {{{"f1", 0.1}}});
//   if (!c.compatible) ...          // exit 2: not the same evaluation (reasons in incompatibilities)
//   else if (c.regression) ...      // exit 1: a score got worse by more than its tolerance
//
// Compatibility (never silently compare different things; every check that fails is listed):
//   task          equal
//   split         equal
//   examples      equal number of examples scored (a 42-key subset of a 6,652-key test set is
//                 not the test set)
//   data          equal data.sha256 (sha256_path: a file's bytes or a folder's files); both
//                 results must record it: one or both without a digest is not comparable
//   metrics       the same metric ids on both sides, each with the same signature
// Each score of the baseline is then looked up in the current run:
//   worse by more than tolerance    -> kRegression   (also a score missing from the current run)
//   worse but within tolerance      -> kWithinTolerance
//   worse, but inside the bootstrap interval (by_ci)  -> kWithinInterval
//   equal (|diff| <= 1e-12·max(1,|v|)) -> kSame
//   better                          -> kImproved
// "worse" follows Score::higher_is_better. Scores only in the current run are kNew.
//
// Tolerances, first that names the score: CompareOptions::tolerance[name], the baseline file's
// own "tolerances" object (a top-level {"f1": 0.1, "*": 0.05} in BASELINE.json, kept in
// RunResult::extra), CompareOptions::tolerance["*"], the baseline's "*", default_tolerance.
// (`unieval compare --tolerances FILE.json` fills CompareOptions::tolerance from a file.)
//
// Options (CompareOptions):
//   tolerance          {}     score name -> allowed worsening in the score's own unit;
//                             the key "*" applies to every score without its own entry
//   default_tolerance  0      allowed worsening for scores with no entry
//   by_ci              false  a worsening beyond the tolerance is not a regression while the
//                             current value lies inside the baseline score's confidence interval
//                             (a baseline without one: while the baseline value lies inside the
//                             current's); scores with neither fall back to their tolerance (the
//                             row says so)
#include <map>
#include <string>
#include <vector>

#include "results/report.h"
#include "results/run_result.h"

namespace unieval::results {

struct CompareOptions {
  std::map<std::string, double> tolerance;  // score name (or "*") -> allowed worsening
  double default_tolerance = 0;             // when neither the name nor "*" is given
  bool by_ci = false;                       // judge a drop by the bootstrap interval
};

enum class CompareStatus {
  kSame,
  kImproved,
  kWithinTolerance,
  kWithinInterval,
  kRegression,
  kMissing,
  kNew
};
const char* to_string(CompareStatus s);

struct CompareRow {
  std::string name;  // score name
  std::string unit;
  double baseline = 0, current = 0;
  double diff = 0;  // current - baseline
  double tolerance = 0;
  std::string tolerance_from;  // "--tolerance", "baseline file", "default"
  std::string interval;        // the interval judged by (by_ci), or why none
  CompareStatus status = CompareStatus::kSame;
};

struct Comparison {
  bool compatible = true;
  std::vector<std::string> incompatibilities;  // why not (one line each)
  std::vector<CompareRow> rows;
  bool regression = false;  // any kRegression or kMissing
};

// Tolerances from a JSON object {"score": number, "*": number}; InputError naming source otherwise.
std::map<std::string, double> parse_tolerances(const nlohmann::json& j, const std::string& source);

// InputError when a tolerance names a score that neither run has (a typo would silently pass).
Comparison compare_runs(const RunResult& baseline, const RunResult& current,
                        const CompareOptions& opts = {});

std::string render_comparison(const Comparison& c, const RunResult& baseline,
                              const RunResult& current, TableFormat format);

}  // namespace unieval::results
