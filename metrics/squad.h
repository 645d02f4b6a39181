#pragma once
// SQuAD exact match and F1, identical to the official evaluation scripts:
//   * evaluate-v1.1.py  (SQuAD 1.1) -> {"exact_match", "f1"}
//   * evaluate-v2.0.py  (SQuAD 2.0) -> {"exact", "f1", "total", "HasAns_exact", "HasAns_f1",
//     "HasAns_total", "NoAns_exact", "NoAns_f1", "NoAns_total"[, "best_exact",
//     "best_exact_thresh", "best_f1", "best_f1_thresh"]} (official key order; HasAns_* / NoAns_*
//     only when the data has such questions; best_* only with an na-prob file)
// All values are 100 * mean, unrounded, summed in the official order (plain left-to-right double
// sums, as CPython 3.11's sum()).
//
//   auto data  = unieval::metrics::load_squad_dataset("dev-v2.0.json");
//   auto preds = unieval::metrics::load_squad_predictions("predictions.json");
//   auto res   = unieval::metrics::evaluate_squad(data, preds, nullptr, {});
//   res.to_json()  // {"exact": 78.742..., "f1": 81.775..., ...}
//
// Quirks kept on purpose (see docs/metrics/rouge_squad_coqa_glue.md §4):
//   * v1.1 F1 of an empty prediction vs an empty gold is 0, v2.0 gives 1; v1.1 EM can exceed F1.
//   * v2.0 golds whose text normalises to "" are dropped ("unanswerable" for scoring) but the
//     question still counts as HasAns in the breakdown (qid_to_has_ans = bool(answers)).
//   * best-threshold search (v2.0, find_best_thresh): a NoAns question counts as correct only
//     when the RAW prediction string is empty, so best_exact can be lower than exact; na_prob
//     ties keep the na-prob file order (Python's stable sort); thresholds use raw scores.
// Deviations (documented, on purpose):
//   * Missing predictions. v1.1: scored 0 with a warning, like the official script. v2.0: the
//     official script crashes (KeyError); we throw InputError naming how many are missing and
//     the first ids, unless allow_missing, which scores them 0 (they count in every total; in
//     the best-threshold search they behave as a wrong non-empty answer).
//   * v1.1 on a question without gold answers (official: "max() arg is an empty sequence"):
//     InputError naming the question.
//
// Options (SquadOptions):
//   | field          | default | meaning                                                    |
//   | version        | kAuto   | kAuto: from the data file's "version" (see resolve_version) |
//   | na_prob_thresh | 1.0     | v2.0 --na-prob-thresh: na_prob > thresh predicts no answer |
//   | allow_missing  | false   | v2.0: score missing predictions 0 instead of failing        |
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

namespace unieval::metrics {

// ---- The official per-answer functions ---------------------------------------------------

// evaluate-v1.1.py exact_match_score(prediction, ground_truth).
bool squad_v1_exact_match(std::string_view prediction, std::string_view ground_truth);
// evaluate-v1.1.py f1_score(prediction, ground_truth): 0 when nothing in common (so '' vs '' = 0).
double squad_v1_f1(std::string_view prediction, std::string_view ground_truth);
// evaluate-v2.0.py compute_exact(a_gold, a_pred): 1 or 0.
int squad_v2_compute_exact(std::string_view a_gold, std::string_view a_pred);
// evaluate-v2.0.py compute_f1(a_gold, a_pred): an empty side gives int(gold_toks == pred_toks).
double squad_v2_compute_f1(std::string_view a_gold, std::string_view a_pred);

// F1 on already-tokenised (normalised) answers; v2 selects the v2.0 empty-string rule.
double squad_token_f1(const std::vector<std::string>& pred_toks,
                      const std::vector<std::string>& gold_toks, bool v2);

// ---- Data -------------------------------------------------------------------------------

enum class SquadVersion { kAuto, kV1_1, kV2_0 };

struct SquadQuestion {
  std::string id;
  std::vector<std::string> answers;  // qa['answers'][*]['text'], in file order (duplicates kept)
  long line = 0;                     // line of the question in the data file (for messages)
};

struct SquadDataset {
  std::string version;       // the file's "version" string ("" when absent)
  bool has_is_impossible = false;  // some question carries an "is_impossible" key
  std::vector<SquadQuestion> questions;  // article / paragraph / qa order
  std::string source;        // file name (messages)
};

// A prediction file: qid -> answer (JSON object of strings). Order is kept (file order; a
// duplicate key keeps its first position and its last value, as a Python dict).
struct SquadPredictions {
  std::vector<std::string> ids;
  std::vector<std::string> answers;
  std::unordered_map<std::string, size_t> index;  // id -> position
  std::string source;
  const std::string* find(const std::string& id) const {
    auto it = index.find(id);
    return it == index.end() ? nullptr : &answers[it->second];
  }
};

// An na-prob file: qid -> probability (JSON object of numbers), file order kept.
struct SquadNaProbs {
  std::vector<std::string> ids;
  std::vector<double> probs;
  std::unordered_map<std::string, size_t> index;
  std::string source;
};

// Readers (gzip transparent). Malformed JSON or a wrong layout -> InputError naming the file,
// the line and the problem.
SquadDataset load_squad_dataset(const std::string& path);
SquadPredictions load_squad_predictions(const std::string& path);
SquadNaProbs load_squad_na_probs(const std::string& path);
// The same from text already in memory (`source` names it in messages).
SquadDataset parse_squad_dataset(std::string text, const std::string& source);
SquadPredictions parse_squad_predictions(std::string text, const std::string& source);
SquadNaProbs parse_squad_na_probs(std::string text, const std::string& source);

// ---- Evaluation -------------------------------------------------------------------------

struct SquadOptions {
  SquadVersion version = SquadVersion::kAuto;  // which official script to follow
  double na_prob_thresh = 1.0;                 // v2.0: na_prob > thresh -> "no answer"
  bool allow_missing = false;                  // v2.0: missing predictions score 0
  // "squad|v:2.0|thresh:1.0|missing:error" (na-prob usage is added by evaluate_squad).
  std::string signature(SquadVersion resolved, bool with_na_probs) const;
};

// kAuto -> by the data file: "version" starting with "1." -> 1.1, with "2." or "v2." -> 2.0;
// otherwise 2.0 when some question has no answer or an "is_impossible" key, else 1.1.
SquadVersion resolve_squad_version(const SquadDataset& data, SquadVersion requested);

struct SquadResult {
  SquadVersion version = SquadVersion::kV1_1;
  // v1.1
  double exact_match = 0, f1 = 0;
  // v2.0 (exact/f1 after the no-answer threshold)
  double exact = 0;
  long total = 0;
  std::optional<double> has_ans_exact, has_ans_f1, no_ans_exact, no_ans_f1;
  long has_ans_total = 0, no_ans_total = 0;
  std::optional<double> best_exact, best_exact_thresh, best_f1, best_f1_thresh;
  // Per scored question, in data order: the values the means are taken of (v1.1: EM 0/1 and
  // F1 of each question; v2.0: thresholded exact / f1). Used by the bootstrap.
  std::vector<std::string> item_ids;
  std::vector<double> item_exact, item_f1;
  std::vector<std::string> missing;  // question ids without a prediction (data order)
  std::string signature;

  // The official script's JSON object (its keys, its order).
  nlohmann::ordered_json to_json() const;
};

// Scores predictions against the dataset as the official script of the resolved version does.
// na_probs may be null (v2.0 then uses 0.0 for every question and reports no best_*).
SquadResult evaluate_squad(const SquadDataset& data, const SquadPredictions& preds,
                           const SquadNaProbs* na_probs, const SquadOptions& opts);

}  // namespace unieval::metrics
