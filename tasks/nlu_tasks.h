#pragma once
// Follows google-research/bert (Apache-2.0) run_squad.py / run_classifier.py data reading; no code
// copied; see THIRD_PARTY_NOTICES.md.
// Training-side readers of the understanding tasks `unieval run` fine-tunes (UniLM §3.2 extractive
// QA, §3.5 GLUE): text and labels in the distributed formats, sliced splits, the gold subset the
// eval adapters (`unieval eval`) score against, and prediction writers in the official formats.
// No tokenisation here (pipelines/run_nlu.h turns these into model features).
//
//   SplitSpec s = parse_split_spec("dev[436:]");                 // name "dev", rows 436..end
//   GlueSplit g = read_glue_split("glue-sst2", "glue/SST-2", s); // g.rows[i].a, .label
//   SquadSplit q = read_squad_split("squad-v2", "squad/", parse_split_spec("dev"));
//   CoqaSplit c = read_coqa_split("coqa", "coqa/", parse_split_spec("dev[:100]"));
//
// Split specifications (every task; HF datasets' slicing without percentages):
//   NAME, NAME[B:E], NAME[B:], NAME[:E] with Python semantics (negative = from the end, clamped).
//   The unit is the task's example: a GLUE row, a SQuAD question, a CoQA turn.
//
// Files (DATA = --data):
//   | task       | split S is read from (first that exists; .gz accepted everywhere)            |
//   |------------|------------------------------------------------------------------------------|
//   | glue-*     | DATA/S.tsv; MNLI: dev/test -> dev_matched / test_matched (mnli-mm:            |
//   |            | _mismatched); or DATA's parent holding BASENAME(DATA).S.tsv or                |
//   |            | BASENAME(DATA).S.*.tsv (e.g. glue/SST-2.dev.tsv.gz, RTE.dev.hf-export.tsv.gz) |
//   | squad-v2   | DATA/S-v2.0.json (train-v2.0.json, dev-v2.0.json as distributed),             |
//   |            | DATA/S-v2.0.*.json, DATA/S.json                                                |
//   | squad-v1.1 | DATA/S-v1.1.json, DATA/S-v1.1.*.json, DATA/S.json                             |
//   | coqa       | DATA/coqa-S-v1.0.json (coqa-train-v1.0.json, coqa-dev-v1.0.json), DATA/S.json  |
//
// GLUE layouts: the original TSVs of all nine tasks (CoLA without header: source, label, original
// label, sentence; the others by header: sentence / sentence1+sentence2 / #1 String+#2 String /
// question1+question2 / question+sentence, labels in label / gold_label / Quality / is_duplicate /
// score) and the HF-datasets export (`sentence1 sentence2 label idx`, `sentence label idx`,
// `question sentence label idx`, `premise hypothesis label idx`). Labels as names or numbers
// (metrics::glue_label_names); an unknown label is an InputError naming file and line.
//
// SQuAD: BERT's whitespace split of the context (space, \t, \r, \n, U+202F) into words with the
// character -> word map; answer offsets are Python character (code point) offsets. An answer whose
// offsets fall outside the context is an InputError naming file and question id; an answer whose
// text differs from the context at its offsets is kept as in BERT only when its words contain the
// answer text after whitespace normalisation, else skipped for training (BERT logs and skips).
//
// CoQA: story words as for SQuAD; each turn's question is preceded by up to history_turns
// previous question/answer pairs ("Q1 A1 Q2 A2 ... Q"); the answer class is yes / no / unknown
// when the free-form answer normalises to that word (or the rationale is -1 for unknown), else a
// span: the sub-span of the rationale with the highest word F1 against the free-form answer
// (the usual mapping of CoQA's free-form answers to extractive targets; the rationale itself when
// no word overlaps). A turn without an answer is an InputError naming file, story id and turn.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace unieval::tasks {

struct SplitSpec {
  std::string name;              // split name (train, dev, ...)
  std::optional<int64_t> begin;  // slice start (Python semantics)
  std::optional<int64_t> end;    // slice end
  std::string text;              // as given
  bool sliced() const { return begin.has_value() || end.has_value(); }
};
// InputError on a malformed spec.
SplitSpec parse_split_spec(const std::string& spec);
// [b, e) of a slice over n items (empty when e <= b).
std::pair<size_t, size_t> slice_range(const SplitSpec& s, size_t n);

// The understanding tasks `unieval run` trains: glue-cola, glue-sst2, glue-mrpc, glue-stsb,
// glue-qqp, glue-mnli, glue-mnli-mm, glue-qnli, glue-rte, glue-wnli, squad-v1.1, squad-v2, coqa.
const std::vector<std::string>& nlu_task_names();
bool is_nlu_task(const std::string& task);

// ---- GLUE ----

struct GlueRow {
  std::string index;  // the index/idx column, else the 0-based row number in the file
  std::string a, b;   // text_a, text_b (b empty for single-sentence tasks)
  double label = 0;   // class index or STS-B score
  bool has_label = false;
  long line = 0;  // 1-based line in the file
};

struct GlueSplit {
  std::string task;                 // glue-sst2, ...
  std::string file;                 // the file read
  std::vector<std::string> labels;  // label names in index order (empty: regression)
  std::vector<GlueRow> rows;        // after slicing
  std::string header;               // the header line ("" for CoLA)
  std::vector<std::string> raw;     // the rows' lines as read (gold subset)
  std::string reader;               // one-line description
  bool pair = false;                // a sentence-pair layout (text_b column present)
  bool regression() const { return labels.empty(); }
};
GlueSplit read_glue_split(const std::string& task, const std::string& data, const SplitSpec& split);
// The subset as a TSV the `glue-*` adapter reads (header + the rows' lines).
std::string glue_gold_text(const GlueSplit& s);
// GLUE submission format "index<TAB>prediction" with header; labels as names (STS-B: %.6g).
std::string glue_predictions_text(const GlueSplit& s, const std::vector<double>& predictions);

// ---- SQuAD ----

struct SquadAnswer {
  std::string text;
  int64_t start_char = 0;                // code point offset in the context
  int64_t start_word = 0, end_word = 0;  // BERT's orig start/end word positions
  bool aligned = true;                   // the context words at the offsets contain the text
};
struct SquadQuestion {
  std::string id, question;
  size_t context = 0;                // index into SquadSplit::contexts
  bool impossible = false;           // v2.0 is_impossible
  std::vector<SquadAnswer> answers;  // training target: answers[0] (BERT)
};
struct SquadContext {
  std::vector<std::string> words;  // whitespace words (BERT doc_tokens)
};
struct SquadSplit {
  std::string task, file, version, reader;
  std::vector<SquadContext> contexts;
  std::vector<SquadQuestion> questions;  // after slicing
  std::string gold_json;                 // the official JSON with only these questions
};
SquadSplit read_squad_split(const std::string& task, const std::string& data,
                            const SplitSpec& split);

// ---- CoQA ----

enum class CoqaAnswerKind { kSpan = 0, kYes = 1, kNo = 2, kUnknown = 3 };
const char* coqa_answer_text(CoqaAnswerKind k);  // "", "yes", "no", "unknown"

struct CoqaTurn {
  std::string story_id;
  int64_t turn_id = 0;
  size_t story = 0;      // index into CoqaSplit::stories
  std::string question;  // with history: "q1 a1 q2 a2 ... q"
  std::string answer;    // the free-form answer (input_text)
  CoqaAnswerKind kind = CoqaAnswerKind::kSpan;
  int64_t start_word = 0, end_word = 0;  // span target (kSpan; also the rationale for yes/no)
};
struct CoqaSplit {
  std::string file, reader;
  std::vector<SquadContext> stories;  // story words
  std::vector<CoqaTurn> turns;        // after slicing
  std::string gold_json;              // the official JSON with only these turns
};
CoqaSplit read_coqa_split(const std::string& data, const SplitSpec& split, int history_turns = 2);

// Official prediction files.
std::string squad_predictions_json(const std::vector<std::pair<std::string, std::string>>& answers);
std::string squad_na_probs_json(const std::vector<std::pair<std::string, double>>& probs);
std::string coqa_predictions_json(const std::vector<CoqaTurn>& turns,
                                  const std::vector<std::string>& answers);

// Word-level helpers shared with the featuriser: BERT's whitespace test and word split with the
// code point -> word map.
bool is_squad_whitespace(char32_t c);
void split_words(const std::string& text, std::vector<std::string>& words,
                 std::vector<int64_t>& char_to_word);

}  // namespace unieval::tasks
