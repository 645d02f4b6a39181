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

#include "tasks/task.h"

namespace unieval::tasks {

std::vector<TaskAdapter> gpt_tasks_adapters();

// The texts of a GPT task's examples, for training and prediction (pipelines/run_gpt.h): the same
// files, ids and labels as the adapters above.
struct GptTaskExample {
  std::string id;
  std::vector<std::string> texts;    // snli/scitail {premise, hypothesis}; race {article, question};
                                     // story-cloze {the four story sentences joined by spaces};
                                     // dprd {sentence, pronoun}
  std::vector<std::string> choices;  // race: the options; story-cloze: the two endings; dprd: the candidates
  int64_t label = 0;                 // index into GptTaskData::labels (multiple choice: the answer)
  bool scored = true;                // false: SNLI "-", the other RACE level: neither trained nor scored
};
struct GptTaskData {
  std::string task, file;
  std::vector<std::string> labels;   // snli entailment neutral contradiction; scitail entails neutral;
                                     // race A-D; story-cloze 1 2
  bool multiple_choice = false;      // race*, story-cloze
  std::vector<GptTaskExample> examples;
};
const std::vector<std::string>& gpt_task_names();
// `path` as the adapter's --data (a file, or a RACE folder). InputError as the adapters'.
GptTaskData read_gpt_task_data(const std::string& task, const std::string& path);
// "id<TAB>label" lines (with a header) of the scored examples, which the adapter reads.
std::string gpt_task_predictions_text(const GptTaskData& d, const std::vector<int64_t>& labels);

// CSV records (RFC 4180: quoted fields may hold commas, doubled quotes and newlines). line[i] is
// the 1-based line on which record i starts. InputError on an unterminated quote.
struct CsvTable {
  std::vector<std::vector<std::string>> rows;
  std::vector<long> line;
};
CsvTable parse_csv(const std::string& text, const std::string& source);

// DPRD's substitution (GPT §5, after Trinh & Le 2018): the sentence with the pronoun replaced by
// candidate k, split after the candidate: {sentence up to the pronoun + candidate, the rest}.
// The pronoun is its last whole-word, case-insensitive occurrence in the sentence (in DPRD it
// follows both candidates). InputError naming the example when it does not occur.
std::pair<std::string, std::string> dprd_substitution(const GptTaskExample& e, size_t k);

}  // namespace unieval::tasks
