#pragma once
// Task adapters `squad`, `squad-v1.1`, `squad-v2`: SQuAD reading comprehension, scored with the
// official evaluate-v1.1.py / evaluate-v2.0.py rules (metrics/squad.h).
//
//   unieval eval --task squad --data dev-v2.0.json --pred predictions.json --json
//   -> task "squad-v2", scores exact 78.742, f1 81.775, HasAns_*, NoAns_* (BERT-large's
//      published dev predictions; UniLM Table 5 prints 78.9 / 81.8 for that row)
//
// Data: the official JSON (`{"version", "data": [{"paragraphs": [{"qas": [...]}]}]}`, .gz ok).
// Predictions: the official JSON object {qid: answer}; "" = no answer (v2.0).
// `squad` picks the version from the data file (metrics::resolve_squad_version); `squad-v1.1`
// and `squad-v2` force it. The result's task key is always the resolved one ("squad-v1.1" /
// "squad-v2", the keys the paper tables use).
//
// Scores (names as the official scripts print them, percent, unrounded):
//   v1.1: exact_match, f1
//   v2.0: exact, f1, HasAns_exact, HasAns_f1, NoAns_exact, NoAns_f1 (when the data has such
//         questions), best_exact, best_exact_thresh, best_f1, best_f1_thresh (with na_prob_file)
// Counts (total, HasAns_total, NoAns_total) go to `examples` and the notes.
//
// Options (--option KEY=VALUE):
//   | key            | default | meaning                                                        |
//   | na_prob_file   | none    | v2.0 --na-prob-file: JSON {qid: P(no answer)}                  |
//   | na_prob_thresh | 1.0     | v2.0 --na-prob-thresh                                          |
//   | allow_missing  | false   | v2.0: score missing predictions 0 (official script: KeyError)  |
// Predictions for ids not in the data are an InputError naming the first ones (the official
// scripts ignore them silently; a wrong data/prediction pairing is the usual cause).
#include <vector>

#include "tasks/task.h"

namespace unieval::tasks {

std::vector<TaskAdapter> squad_adapters();

}  // namespace unieval::tasks
