#pragma once
// The GPT tasks' data files, read as tasks/gpt_tasks.h describes them (SNLI, SciTail, RACE, the
// Story Cloze CSV, DPRD), on unieval::core alone: a library of its own, unieval::task_files, so
// that ci/harden --quick fuzzes these readers (fuzz_readers) without compiling every task adapter.
// tasks/gpt_tasks.h includes this header; its adapters score predictions against the same files.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace unieval::tasks {

// The texts of a GPT task's examples, for training and prediction (pipelines/run_gpt.h): the same
// files, ids and labels as the adapters above.
struct GptTaskExample {
  std::string id;
  std::vector<std::string> texts;  // snli/scitail {premise, hypothesis}; race {article, question};
                                   // story-cloze {the four story sentences joined by spaces};
                                   // dprd {sentence, pronoun}
  std::vector<std::string>
      choices;         // race: the options; story-cloze: the two endings; dprd: the candidates
  int64_t label = 0;   // index into GptTaskData::labels (multiple choice: the answer)
  bool scored = true;  // false: SNLI "-", the other RACE level: neither trained nor scored
};
struct GptTaskData {
  std::string task, file;
  std::vector<std::string>
      labels;                    // snli entailment neutral contradiction; scitail entails neutral;
                                 // race A-D; story-cloze 1 2
  bool multiple_choice = false;  // race*, story-cloze
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

// The adapters' view of the same files (tasks/gpt_tasks.cc): one record per example with its
// canonical gold label, and each task's label canonicaliser (nullopt: not a label of the task).
namespace gpt_files {

struct Example {
  std::string id;
  std::string gold;                       // canonical label
  std::string group;                      // sub-score group ("middle"/"high" for RACE), "" = none
  bool scored = true;                     // false: in the file but not scored (SNLI gold "-")
  std::vector<std::string> texts = {};    // read_gpt_task_data: the example's texts
  std::vector<std::string> choices = {};  // and its answer options
};

std::string trim(const std::string& s);  // without leading/trailing spaces, tabs, CR, LF
std::string lower(std::string s);        // ASCII lower case
std::vector<std::string> split_char(const std::string& s, char sep);

std::optional<std::string> snli_label(const std::string& s);
std::vector<Example> read_snli(const std::string& path);
std::optional<std::string> scitail_label(const std::string& s);
std::vector<Example> read_scitail(const std::string& path);
std::optional<std::string> race_label(const std::string& s);
// only_level "middle"/"high" marks the other level's questions unscored ("" = all scored).
std::vector<Example> read_race(const std::string& data, const std::string& only_level);
std::optional<std::string> cloze_label(const std::string& s);
std::vector<Example> read_story_cloze(const std::string& path);
std::optional<std::string> dprd_label(const std::string& s);
std::vector<Example> read_dprd(const std::string& path);

}  // namespace gpt_files

}  // namespace unieval::tasks
