// SQuAD predictions of `unieval run` against google-research/bert (Apache-2.0) run_squad.py's
// write_predictions, through the binary: tests/parity/fixtures/nlu_heads/squad/official/SETTING/
// was written by RUNNING the official code (tests/parity/gen/nlu_heads.py: read_squad_examples,
// convert_examples_to_features with FullTokenizer, write_predictions on the logits of HF
// BertForQuestionAnswering for the same random checkpoint; commits in squad.json). For each
// setting (SQuAD 1.1 and 2.0; n_best_size, max_answer_length, null_score_diff_threshold as
// --n-best, --max-answer-len, --na-threshold; the windows of max_seq_length 40, doc_stride 12,
// max_query_length 12; uncased), `unieval run --no-train` predicts with unieval's own tokenizer,
// windows, model and decoding: predictions.json identical (the answer strings, "empty" where
// run_squad finds no valid span in SQuAD 1.1, "" for no answer) and na_prob.json = null_odds.json
// within 1e-5. The fixture's answers include spans starting at a "##" piece ("th century ,"),
// ending inside a word ("the Norse", get_final_text) and, in the settings nbest10_len2 and
// nbest12_*, answers that change when padding positions take n-best slots of a short window
// (run_squad ranks all max_seq_length positions; unieval before PredictOptions::pad_to did not).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "core/io.h"
#include "tests/test_util.h"

namespace unieval::parity_squad_predictions_test {
namespace {

namespace fs = std::filesystem;

nlohmann::json read_json(const fs::path& p) {
  return nlohmann::json::parse(core::read_file(p.string()));
}

TEST(SquadPredictionsParityTest, RunMatchesRunSquadWritePredictions) {
  const fs::path fx = fs::path(UNIEVAL_SOURCE_DIR) / "tests/parity/fixtures/nlu_heads";
  const auto sq = read_json(fx / "squad.json");
  ASSERT_EQ(sq["bert"]["commit"].get<std::string>().size(), 40u);
  ASSERT_TRUE(sq["do_lower_case"].get<bool>());
  ASSERT_EQ(sq["settings"].size(), 12u);
  testing::TempDir tmp;
  size_t answers = 0, no_answer = 0, empty = 0, v2_questions = 0;
  double worst = 0;
  for (const auto& s : sq["settings"]) {
    const std::string name = s["name"].get<std::string>();
    SCOPED_TRACE(name);
    const bool v2 = s["version"] == "v2.0";
    const std::string out = (tmp.path() / name).string();
    std::string args =
        std::string("run --task ") + (v2 ? "squad-v2" : "squad-v1.1") + " --data " +
        testing::shq((fx / "squad").string()) + " --model " +
        testing::shq((fx / "model").string()) + " --out " + testing::shq(out) +
        " --train-split dev --eval-split dev --no-train --no-baselines --no-progress --lowercase" +
        " --threads 1 --max-seq-len " + std::to_string(sq["max_seq_length"].get<int>()) +
        " --doc-stride " + std::to_string(sq["doc_stride"].get<int>()) + " --max-query-len " +
        std::to_string(sq["max_query_length"].get<int>()) + " --n-best " +
        std::to_string(s["n_best_size"].get<int>()) + " --max-answer-len " +
        std::to_string(s["max_answer_length"].get<int>());
    if (v2) args += " --na-threshold " + s["null_score_diff_threshold"].dump();
    auto r = testing::run_cli(args);
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    const auto official = read_json(fx / "squad/official" / name / "predictions.json");
    const auto got = read_json(fs::path(out) / "eval/predictions.json");
    ASSERT_EQ(got.size(), official.size());
    for (const auto& [id, text] : official.items()) {
      ASSERT_TRUE(got.contains(id)) << id;
      EXPECT_EQ(got[id].get<std::string>(), text.get<std::string>()) << id;
      const std::string t = text.get<std::string>();
      (t.empty() ? no_answer : t == "empty" ? empty : answers) += 1;
    }
    if (!v2) continue;
    const auto odds = read_json(fx / "squad/official" / name / "null_odds.json");
    const auto na = read_json(fs::path(out) / "eval/na_prob.json");
    ASSERT_EQ(na.size(), odds.size());
    for (const auto& [id, diff] : odds.items()) {
      const double want = diff.get<double>(), have = na.at(id).get<double>();
      EXPECT_NEAR(have, want, 1e-5 * std::max(1.0, std::abs(want))) << id;
      worst = std::max(worst, std::abs(have - want));
      ++v2_questions;
    }
  }
  // The settings cover answers, SQuAD 2.0 no-answers and run_squad's "empty".
  EXPECT_EQ(answers, 106u);
  EXPECT_EQ(no_answer, 28u);
  EXPECT_EQ(empty, 7u);
  std::cout << answers << " answers, " << no_answer << " no-answers, " << empty
            << " \"empty\" identical; null odds of " << v2_questions << " v2 predictions within "
            << worst << "\n";
}

}  // namespace
}  // namespace unieval::parity_squad_predictions_test
