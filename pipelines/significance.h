#pragma once
// Paired significance between the systems of a leaderboard (`unieval table`): for each (task,
// split) and each score whose per-example values are in the results (`unieval eval
// --per-example`), the column's best system against every other one by paired bootstrap
// resampling over the shared examples (metrics/bootstrap.h paired_bootstrap: sacreBLEU's paired
// bootstrap, Koehn 2004), rendered as † marks by the HTML leaderboard (results/html_report.h).
//
//   auto tests = paired_significance(runs, {}, &notes);   // notes say which scores were not tested
//
// A score is tested only where the test is about the number in the table: the per-example mean
// (x 1 or x 100 for percent scores) must equal the result's score to 1e-6 relative (EM, F1,
// accuracy: yes; corpus BLEU, ROUGE-1.5.5 averages of other statistics: not necessarily), and
// both results must hold per-example values for the same set of example ids. Otherwise a note
// says why the score has no test.
//
// Options (SignificanceOptions):
//   resamples  1000    bootstrap resamples
//   seed       12345   mt19937_64 seed
#include <cstdint>
#include <string>
#include <vector>

#include "results/report.h"
#include "results/run_result.h"

namespace unieval::pipelines {

struct SignificanceOptions {
  int resamples = 1000;   // bootstrap resamples
  uint64_t seed = 12345;  // RNG seed
};

std::vector<results::PairedTest> paired_significance(const std::vector<results::RunResult>& runs,
                                                     const SignificanceOptions& opts,
                                                     std::vector<std::string>* notes);

}  // namespace unieval::pipelines
