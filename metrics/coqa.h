#pragma once
// Follows CoQA (no licence header) and SQuAD (no licence header) behaviour only; no code taken; see
// THIRD_PARTY_NOTICES.md.
// CoQA EM/F1 identical to the official evaluate-v1.0.py (stanfordnlp/coqa-baselines
// scripts/evaluate-v1.0.py @693d05b, class CoQAEvaluator), which ERNIE-GEN's
// eval/tasks/coqa/eval.py repeats:
//   * normaliser and EM/F1 = SQuAD 2.0's (metrics/text/squad_normalize.h; F1('', '') = 1);
//   * gold answers of a turn: answers[i].input_text plus each additional_answers list
//     (4 in the dev set); turn score with >1 gold = mean over i of the max against the golds
//     without gold i (leave-one-out); with 1 gold the plain max;
//   * yes / no / unknown are ordinary strings;
//   * domain table: 7 sources (mctest -> children_stories, gutenberg -> literature,
//     race -> mid-high_school, cnn -> news, wikipedia, reddit, science), in_domain (the first
//     five), out_domain (reddit, science), overall. A missing prediction counts 0 in the turn
//     count (the official script skips it in the raw scores and warns);
//   * the official table rounds each value with Python round(x, 1); CoqaRow keeps the full
//     precision value and CoqaResult::to_json(rounded) gives either.
//
//   auto data  = unieval::metrics::load_coqa_dataset("coqa-dev-v1.0.json");
//   auto preds = unieval::metrics::load_coqa_predictions("predictions.json");
//   auto res   = unieval::metrics::evaluate_coqa(data, preds);
//   res.to_json(false)["overall"]["f1"]
//
// Prediction file: the official format, a JSON list of {"id": story id, "turn_id": n,
// "answer": text}.
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace unieval::metrics {

// CoQAEvaluator._compute_turn_score(a_gold_list, a_pred): {em, f1} in [0, 1].
struct CoqaTurnScore {
  double em = 0, f1 = 0;
};
CoqaTurnScore coqa_turn_score(const std::vector<std::string>& gold_answers, std::string_view pred);

struct CoqaTurn {
  std::string story_id;
  long turn_id = 0;
  std::string source;              // story['source']
  std::vector<std::string> golds;  // main answer then additional_answers, in file order
};
struct CoqaDataset {
  std::vector<CoqaTurn> turns;        // gold_data order (story, turn); duplicates collapsed
  std::vector<std::string> warnings;  // the official script's turn-id mismatch messages
  std::string source;
};
struct CoqaPredictions {
  std::map<std::pair<std::string, long>, std::string> answers;  // (story id, turn id) -> answer
  std::string source;
};

CoqaDataset load_coqa_dataset(const std::string& path);
CoqaDataset parse_coqa_dataset(std::string text, const std::string& source);
CoqaPredictions load_coqa_predictions(const std::string& path);
CoqaPredictions parse_coqa_predictions(std::string text, const std::string& source);

struct CoqaRow {
  std::string name;       // children_stories ... in_domain, out_domain, overall
  double em = 0, f1 = 0;  // percent, full precision
  long turns = 0;
};

struct CoqaResult {
  std::vector<CoqaRow> rows;             // the official table order
  std::vector<double> item_em, item_f1;  // per gold turn (0 for a missing prediction), [0,1]
  std::vector<std::string> missing;      // "story|turn" without a prediction
  std::string signature;
  // {"children_stories": {"em", "f1", "turns"}, ...}; rounded=true applies the official
  // round(x, 1).
  nlohmann::ordered_json to_json(bool rounded) const;
  // The official table as printed, one row per line, values at 1 decimal.
  std::string table() const;
};

CoqaResult evaluate_coqa(const CoqaDataset& data, const CoqaPredictions& preds);

// Python round(x, 1) (correctly rounded, half to even on the exact binary value).
double python_round1(double x);

}  // namespace unieval::metrics
