#pragma once
// Task adapters for the GPT paper's (Radford et al. 2018) other classification tasks whose data
// format is public: `snli`, `scitail`, `race`, `race-m`, `race-h`, `story-cloze`. Metric:
// accuracy (fraction; GPT Tables 2 and 3 print x100), with the correct/incorrect vector kept for
// `--bootstrap` CIs. The task keys line up with results/paper/gpt.jsonl's columns (SNLI, SciTail,
// RACE, RACE-m, RACE-h, Story Cloze) for `unieval reproduce --paper gpt`. `dprd` is the Definite
// Pronoun Resolution Dataset (Rahman & Ng 2012), the Winograd-schema task of GPT's zero-shot §5
// (Figure 2 plots it; no table prints it).
//
//   unieval eval --task snli --data snli_1.0_test.jsonl --pred snli.pred.txt
//   unieval eval --task race-h --data RACE/test --pred race.pred.tsv
//
// Data, as distributed:
//   snli        snli_1.0_{dev,test}.jsonl (objects with gold_label, pairID) or the .txt TSV with
//               a header naming gold_label and pairID. Pairs whose gold_label is "-" (no
//               annotator consensus) are not scored, as the SNLI README prescribes (test: 9,824
//               of 10,000 pairs). Labels: entailment, neutral, contradiction.
//   scitail     SciTail tsv_format scitail_1.0_{dev,test}.tsv: premise<TAB>hypothesis<TAB>label
//               (extra columns, e.g. dgem_format's, ignored), no header. Labels: entails, neutral.
//               Ids are 0-based line indices.
//   race*       the RACE folder (RACE/test, RACE/test/high, ...) or one article file: each file a
//               JSON object {"id", "article", "questions", "options", "answers"}; questions in
//               file order, files in byte order of their path below --data. Level (middle/high)
//               from a "middle"/"high" folder on the path, else the id's prefix. race = all,
//               race-m = middle only, race-h = high only; `race` also reports accuracy_middle and
//               accuracy_high. Ids "<file id>-<question index from 0>" ("high1234.txt-0").
//               Answers: A-D (or 0-3 as an option index).
//   story-cloze the Story Cloze Test CSV (cloze_test_{val,test}__spring2016 - cloze_test_ALL_*.csv):
//               header with InputStoryid and AnswerRightEnding (1 or 2); RFC 4180 quoting.
//   dprd        the release's train.c.txt / test.c.txt: blocks of four lines (the sentence, the
//               pronoun, the two candidates separated by a comma, the answer) separated by blank
//               lines. Ids "dprd-<block index from 0>"; labels 0 / 1 = the answer's candidate.
// Predictions (--pred), any of:
//   * one label per line, in data order (snli: the scored pairs, or every pair of the file with
//     the "-" ones ignored; race-m/-h: their questions, or every question below --data with the
//     other level's ignored);
//   * `id<TAB>label` (or `id,label`) lines, an optional header line first; every scored example
//     needs exactly one; ids the data does not have are an error;
//   * a JSON object {"id": label, ...}.
// Malformed input (bad JSON, a wrong column count, an unknown label, a missing or unknown id, a
// count mismatch) is an InputError naming the file, the line or id, and the problem.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tasks/files/gpt_task_files.h"  // the readers, GptTaskData, parse_csv
#include "tasks/task.h"

namespace unieval::tasks {

std::vector<TaskAdapter> gpt_tasks_adapters();

}  // namespace unieval::tasks
