#pragma once
// The GLUE average row of `unieval table`: from the glue-* results among a table's inputs, one
// synthetic result per (system, split) with each task's GLUE number and their average over the
// tasks present, rendered as one more leaderboard (task "glue-average").
//
//   auto rows = results::glue_average_rows(runs);          // empty when no glue-* result
//   if (!rows.empty()) text += render_leaderboard(rows, opts);
//
// Per task (as the GLUE leaderboard and `unieval score --metric glue-score`, metrics/glue.h):
// CoLA = MCC; MRPC, QQP = mean(F1, accuracy); STS-B = mean(Pearson, Spearman); SST-2, MNLI-m,
// MNLI-mm, QNLI, RTE, WNLI = accuracy; AX is never averaged. Values are the results' fractions x 100
// (percent, as the paper tables print them). Average = the unweighted mean over the tasks present,
// MNLI counted once as mean(MNLI-m, MNLI-mm) when both are present (the leaderboard's "Score"
// convention); the column "tasks" says how many tasks entered it, so a partial average is never
// mistaken for the nine-task GLUE score. A system with several results for one task: the last given.
#include <vector>

#include "results/run_result.h"

namespace unieval::results {

std::vector<RunResult> glue_average_rows(const std::vector<RunResult>& runs);

}  // namespace unieval::results
