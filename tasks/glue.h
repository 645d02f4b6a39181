#pragma once
// Task adapters `glue-<task>` (cola, sst2, mrpc, stsb, qqp, mnli, mnli-mm, qnli, rte, wnli, ax):
// the GLUE metric of each task with HF transformers `glue_compute_metrics` semantics
// (metrics/glue.h).
//
//   unieval eval --task glue-sst2 --data SST-2/dev.tsv --pred sst2.predictions.tsv
//
// Data: the task's dev TSV as distributed by GLUE (or the HF-datasets export with
// `sentence1 sentence2 label idx`); predictions: a GLUE submission file (`index<TAB>prediction`
// with header) or one label per line; labels as names or numbers. The counts must agree
// (InputError naming both files otherwise).
// Scores (fractions, as the paper tables' x100 scale expects): accuracy (all but STS-B), f1 and
// acc_and_f1 (MRPC, QQP), mcc (CoLA, AX), pearson, spearman, corr (STS-B).
// The GLUE average over tasks is `unieval score --metric glue-score` (metrics/glue.h glue_score).
#include <vector>

#include "tasks/task.h"

namespace unieval::tasks {

std::vector<TaskAdapter> glue_adapters();

}  // namespace unieval::tasks
