#pragma once
// Task adapters `coqa` (extractive) and `coqa-gen` (generative): the official CoQA evaluator
// evaluate-v1.0.py (metrics/coqa.h): SQuAD-2.0 normalisation, leave-one-out over the 4 golds,
// domain table. UniLM Tables 6/7 and ERNIE-GEN Table 6 print the overall F1.
//
//   unieval eval --task coqa-gen --data coqa-dev-v1.0.json --pred predictions.json
//
// Data: the official CoQA JSON; predictions: the official list [{"id", "turn_id", "answer"}].
// Scores (percent, unrounded; the official table rounds to 1 decimal): em, f1 (overall),
// in_domain_em, in_domain_f1, out_domain_em, out_domain_f1. Missing predictions score 0 (as the
// official domain table counts them) and are noted.
#include <vector>

#include "tasks/task.h"

namespace unieval::tasks {

std::vector<TaskAdapter> coqa_adapters();

}  // namespace unieval::tasks
