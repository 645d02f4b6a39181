// CoQA against the official evaluate-v1.0.py: every golden line of ../shared/golden/coqa.jsonl
// and the bench file with its recorded official table.
#include "metrics/coqa.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "core/error.h"
#include "tests/test_util.h"

namespace unieval::metrics {
namespace {

using unieval::testing::read_jsonl;
using unieval::testing::shared_dir;

void expect_close(double want, double got, const std::string& what) {
  EXPECT_NEAR(want, got, 1e-12 * std::max(1.0, std::fabs(want))) << what;
}

TEST(CoqaTest, GoldenTurnScores) {
  UNIEVAL_REQUIRE_SHARED("golden/coqa.jsonl");
  int n = 0;
  for (const auto& c : read_jsonl(shared_dir() / "golden/coqa.jsonl")) {
    if (c["metric"] != "coqa_turn") continue;
    ++n;
    auto s = coqa_turn_score(c["inputs"]["gold_answers"].get<std::vector<std::string>>(),
                             c["inputs"]["pred"].get<std::string>());
    expect_close(c["expected"]["em"].get<double>(), s.em, c["id"].get<std::string>() + " em");
    expect_close(c["expected"]["f1"].get<double>(), s.f1, c["id"].get<std::string>() + " f1");
  }
  EXPECT_EQ(30, n);
}

TEST(CoqaTest, GoldenDatasets) {
  UNIEVAL_REQUIRE_SHARED("golden/coqa.jsonl");
  int n = 0;
  for (const auto& c : read_jsonl(shared_dir() / "golden/coqa.jsonl")) {
    if (c["metric"] != "coqa_dataset") continue;
    ++n;
    std::string id = c["id"];
    nlohmann::json d;
    d["version"] = "1.0";
    d["data"] = c["inputs"]["data"];
    auto ds = parse_coqa_dataset(d.dump(), "data.json");
    auto preds = parse_coqa_predictions(c["inputs"]["predictions"].dump(), "pred.json");
    auto r = evaluate_coqa(ds, preds);
    const auto& table = c["expected"]["official_table"];
    auto rounded = r.to_json(true);
    auto full = r.to_json(false);
    ASSERT_EQ(table.size(), rounded.size()) << id;
    for (auto it = table.begin(); it != table.end(); ++it) {
      ASSERT_TRUE(rounded.contains(it.key())) << id << " " << it.key();
      // The official table: exact 1-decimal values.
      EXPECT_EQ(it.value()["em"].get<double>(), rounded[it.key()]["em"].get<double>())
          << id << " " << it.key();
      EXPECT_EQ(it.value()["f1"].get<double>(), rounded[it.key()]["f1"].get<double>())
          << id << " " << it.key();
      EXPECT_EQ(it.value()["turns"].get<long>(), full[it.key()]["turns"].get<long>())
          << id << " " << it.key();
      // Full precision rounds to the official value.
      EXPECT_EQ(it.value()["f1"].get<double>(), python_round1(full[it.key()]["f1"].get<double>()))
          << id;
    }
    // Per-turn raw scores (official get_raw_scores; turns without prediction are absent there).
    const auto& raw = c["expected"]["per_turn_raw"];
    size_t k = 0;
    for (const auto& t : ds.turns) {
      std::string key = t.story_id + "|" + std::to_string(t.turn_id);
      if (raw.contains(key)) {
        expect_close(raw[key]["em"].get<double>(), r.item_em[k], id + " " + key + " em");
        expect_close(raw[key]["f1"].get<double>(), r.item_f1[k], id + " " + key + " f1");
      } else {
        EXPECT_EQ(0.0, r.item_f1[k]) << id << " " << key << " (missing prediction counts 0)";
      }
      ++k;
    }
  }
  EXPECT_EQ(30, n);
}

TEST(CoqaTest, BenchFileGivesTheRecordedOfficialTable) {
  UNIEVAL_REQUIRE_SHARED("golden/bench/expected_coqa.json");
  auto b = shared_dir() / "golden/bench";
  auto r = evaluate_coqa(load_coqa_dataset((b / "coqa_synth_dev.json.gz").string()),
                         load_coqa_predictions((b / "coqa_synth_pred.json.gz").string()));
  std::ifstream in(b / "expected_coqa.json");
  auto want = nlohmann::json::parse(in);
  auto got = r.to_json(true);
  for (auto it = want.begin(); it != want.end(); ++it) {
    EXPECT_EQ(it.value()["em"].get<double>(), got[it.key()]["em"].get<double>()) << it.key();
    EXPECT_EQ(it.value()["f1"].get<double>(), got[it.key()]["f1"].get<double>()) << it.key();
    EXPECT_EQ(it.value()["turns"].get<long>(), got[it.key()]["turns"].get<long>()) << it.key();
  }
}

TEST(CoqaTest, LeaveOneOutAndYesNo) {
  // 4 golds: each left out in turn; "Yes." == "yes" after normalisation.
  expect_close(1.0, coqa_turn_score({"yes", "Yes.", "yes", "YES"}, "yes").em, "yes");
  auto s = coqa_turn_score({"red", "blue", "blue", "blue"}, "red");
  expect_close(0.75, s.em, "leaving 'red' out scores 0, the three other folds 1");
  expect_close(0.0, coqa_turn_score({"x"}, "y").f1, "one gold");
  expect_close(1.0, coqa_turn_score({""}, "").f1, "empty vs empty = 1 (SQuAD 2.0 rule)");
}

TEST(CoqaTest, UnknownSourceAndBadJsonAreInputErrors) {
  EXPECT_THROW(parse_coqa_dataset(
                   R"({"data":[{"source":"blogs","id":"s","questions":[],"answers":[]}]})", "d"),
               InputError);
  EXPECT_THROW(parse_coqa_predictions("[{\"id\": \"s\", \"turn_id\": 1 \"answer\": \"x\"}]", "p"),
               InputError);
}

TEST(CoqaTest, PythonRound1IsHalfEvenOnTheBinaryValue) {
  EXPECT_EQ(0.1, python_round1(0.05));   // 0.05 is slightly above .05 in binary -> 0.1
  EXPECT_EQ(0.2, python_round1(0.25));   // exact tie -> even
  EXPECT_EQ(2.7, python_round1(2.675));  // 2.675 is below in binary -> 2.7 (one decimal)
  EXPECT_EQ(46.7, python_round1(46.666666666666664));
}

}  // namespace
}  // namespace unieval::metrics
