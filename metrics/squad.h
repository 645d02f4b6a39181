#pragma once
// Follows SQuAD (no licence header) behaviour only; no code taken; see THIRD_PARTY_NOTICES.md.
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
//   | threads        | 0       | scoring threads (0 = all cores, max 8); numbers identical   |
#include <algorithm>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/huge_pages.h"
#include "metrics/ngram_ids.h"

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
// The same on token views (e.g. NormalizedAnswer::toks).
double squad_token_f1(const std::vector<std::string_view>& pred_toks,
                      const std::vector<std::string_view>& gold_toks, bool v2);

// ---- Data -------------------------------------------------------------------------------

enum class SquadVersion { kAuto, kV1_1, kV2_0 };

struct SquadQuestion {
  std::string_view id;        // qa['id'] (a view into SquadDataset::text)
  uint32_t first_answer = 0;  // qa['answers'][*]['text'] are answer_texts[first_answer ..
  uint32_t n_answers = 0;     //   first_answer + n_answers), file order, duplicates kept
  long line = 0;              // line of the question in the data file (for messages)
};

// A contiguous run of answer texts (SquadDataset::answers).
struct SquadAnswers {
  const std::string_view* b = nullptr;
  const std::string_view* e = nullptr;
  const std::string_view* begin() const { return b; }
  const std::string_view* end() const { return e; }
  size_t size() const { return static_cast<size_t>(e - b); }
  bool empty() const { return b == e; }
};

// The views (ids, answers) point into `text`, the data file's decoded text, which copies of the
// dataset share: nothing is copied per question.
struct SquadDataset {
  std::string version;                        // the file's "version" string ("" when absent)
  bool has_is_impossible = false;             // some question carries an "is_impossible" key
  core::HugeVector<SquadQuestion> questions;  // article / paragraph / qa order
  core::HugeVector<std::string_view> answer_texts;
  std::string source;  // file name (messages)
  std::shared_ptr<const core::HugeVector<char>> text;
  SquadAnswers answers(const SquadQuestion& q) const {
    const std::string_view* b = answer_texts.data() + q.first_answer;
    return {b, b + q.n_answers};
  }
};

// A prediction file: qid -> answer (JSON object of strings). Order is kept (file order; a
// duplicate key keeps its first position and its last value, as a Python dict).
// Question id -> position in a list of ids, open addressing over the positions: no
// allocation per id (the ids live in the list it indexes, which every call names through
// `id_at(pos)`, so copies of the owner stay valid).
class SquadIdIndex {
 public:
  static constexpr size_t npos = static_cast<size_t>(-1);
  void reserve(size_t n) {
    if (n * 2 > slots_.size()) rehash(n * 2, nullptr);
  }
  template <class IdAt>
  size_t find(std::string_view id, IdAt&& id_at) const {
    if (slots_.empty()) return npos;
    uint64_t h = hash(id);
    size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      const Slot& s = slots_[i];
      if (s.pos == 0) return npos;
      if (s.hash == static_cast<uint32_t>(h >> 32) && std::string_view(id_at(s.pos - 1)) == id)
        return s.pos - 1;
    }
  }
  // Records id at position pos (not present before).
  void insert(std::string_view id, size_t pos) {
    if ((size_ + 1) * 2 > slots_.size()) rehash(std::max<size_t>(16, slots_.size() * 2), nullptr);
    place(hash(id), pos);
    ++size_;
  }
  size_t size() const { return size_; }
  // find, trying position `hint` first (then hint = the answer + 1): files written in the same
  // order (predictions and na-probs in dataset order, as every SQuAD script writes them) are
  // matched by one comparison each, in sequence, without hashing; same answers as find.
  template <class IdAt>
  size_t find_near(std::string_view id, size_t& hint, IdAt&& id_at) const {
    size_t k = hint < size_ && std::string_view(id_at(hint)) == id ? hint : find(id, id_at);
    hint = k == npos ? hint : k + 1;
    return k;
  }

 private:
  struct Slot {
    uint32_t pos = 0;   // position + 1; 0 = empty
    uint32_t hash = 0;  // high half of the id's hash
    uint32_t low = 0;   // low half (to rehash without the ids)
  };
  static uint64_t hash(std::string_view s) { return internal::hash_bytes(s); }  // 8 bytes a step
  void place(uint64_t h, size_t pos) {
    size_t mask = slots_.size() - 1;
    size_t i = h & mask;
    while (slots_[i].pos != 0) i = (i + 1) & mask;
    slots_[i] = Slot{static_cast<uint32_t>(pos + 1), static_cast<uint32_t>(h >> 32),
                     static_cast<uint32_t>(h)};
  }
  void rehash(size_t want, std::nullptr_t) {
    size_t cap = 16;
    while (cap < want) cap *= 2;
    core::HugeVector<Slot> old;
    old.swap(slots_);
    slots_.assign(cap, Slot{});
    for (const Slot& s : old)
      if (s.pos) place((static_cast<uint64_t>(s.hash) << 32) | s.low, s.pos - 1);
  }
  core::HugeVector<Slot> slots_;
  size_t size_ = 0;
};

// (The large per-question arrays are HugeVectors: 10,000 questions fill ~100 pages each,
// which cost more in page faults than the scoring.)
struct SquadPredictions {
  core::HugeVector<std::string_view> ids;      // views into text
  core::HugeVector<std::string_view> answers;  // views into text
  SquadIdIndex index;                          // id -> position in ids
  std::string source;
  std::shared_ptr<const core::HugeVector<char>> text;  // the file's decoded text
  const std::string_view* find(std::string_view id) const {
    size_t k = index.find(id, [this](size_t i) { return ids[i]; });
    return k == SquadIdIndex::npos ? nullptr : &answers[k];
  }
  const std::string_view* find_near(std::string_view id, size_t& hint) const {  // see SquadIdIndex
    size_t k = index.find_near(id, hint, [this](size_t i) { return ids[i]; });
    return k == SquadIdIndex::npos ? nullptr : &answers[k];
  }
};

// An na-prob file: qid -> probability (JSON object of numbers), file order kept.
struct SquadNaProbs {
  core::HugeVector<std::string_view> ids;  // views into text
  core::HugeVector<double> probs;
  SquadIdIndex index;  // id -> position in ids
  size_t find(std::string_view id) const {
    return index.find(id, [this](size_t i) { return ids[i]; });
  }
  size_t find_near(std::string_view id, size_t& hint) const {  // see SquadIdIndex
    return index.find_near(id, hint, [this](size_t i) { return ids[i]; });
  }
  std::string source;
  std::shared_ptr<const core::HugeVector<char>> text;  // the file's decoded text
};

// Readers (gzip transparent). Malformed JSON or a wrong layout -> InputError naming the file,
// the line and the problem.
//
// The readers first scan the text with a core::JsonCursor, keeping only ids, answer texts and
// probabilities (no node per value: a SQuAD dev file has ~140,000; contexts and questions are
// only checked); a file the scan refuses (malformed, or a layout it leaves to the document:
// a repeated or escaped key, a wrong type) is parsed as a core::JsonDocument, which names the
// problem. Both paths give the same dataset or the same error (*_with_document below read
// through the document alone, for tests that hold the two to each other).
SquadDataset load_squad_dataset(const std::string& path);
SquadPredictions load_squad_predictions(const std::string& path);
SquadNaProbs load_squad_na_probs(const std::string& path);
// The same from text already in memory (`source` names it in messages).
SquadDataset parse_squad_dataset(std::string text, const std::string& source);
SquadPredictions parse_squad_predictions(std::string text, const std::string& source);
SquadNaProbs parse_squad_na_probs(std::string text, const std::string& source);
SquadDataset parse_squad_dataset_with_document(std::string text, const std::string& source);
SquadPredictions parse_squad_predictions_with_document(std::string text, const std::string& source);
SquadNaProbs parse_squad_na_probs_with_document(std::string text, const std::string& source);

// ---- Evaluation -------------------------------------------------------------------------

struct SquadOptions {
  SquadVersion version = SquadVersion::kAuto;  // which official script to follow
  double na_prob_thresh = 1.0;                 // v2.0: na_prob > thresh -> "no answer"
  bool allow_missing = false;                  // v2.0: missing predictions score 0
  int threads = 0;  // questions scored in parallel: 0 = all cores (at most 8); same numbers for any
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
  // F1 of each question; v2.0: thresholded exact / f1). Used by the bootstrap. The ids are views
  // into the dataset's text, which `text` keeps alive.
  std::vector<std::string_view> item_ids;
  std::shared_ptr<const core::HugeVector<char>> text;
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
