// The squad adapters: small files written here, plus the published SQuAD predictions in ../shared.
#include <gtest/gtest.h>

#include "core/error.h"
#include "pipelines/evaluate.h"
#include "tasks/squad.h"
#include "tests/tasks/task_test_util.h"
#include "tests/test_util.h"

namespace unieval::tasks {
namespace {

using pipelines::evaluate;  // adapters are exercised through the evaluate flow

using unieval::testing::shared_dir;
using unieval::testing::TempDir;

const char* kData =
    R"({"version": "v2.0", "data": [{"title": "T", "paragraphs": [{"context": "The cat sat.", "qas": [
  {"id": "q1", "question": "Who sat?", "answers": [{"text": "the cat", "answer_start": 0}], "is_impossible": false},
  {"id": "q2", "question": "Who flew?", "answers": [], "is_impossible": true}]}]}]})";

TEST(SquadTaskTest, ScoresV2WithTheOfficialRules) {
  TempDir tmp;
  auto data = tmp.write("dev.json", kData);
  // "cat" normalises like "the cat" (articles removed): EM 1; "" on the NoAns question: 1.
  auto good = tmp.write("good.json", R"({"q1": "cat", "q2": ""})");
  auto r = evaluate(request("squad", data, good));
  EXPECT_EQ(r.task, "squad-v2");
  EXPECT_EQ(r.split, "dev");
  EXPECT_EQ(r.system, "good");
  EXPECT_DOUBLE_EQ(r.score("exact")->value, 100.0);
  EXPECT_DOUBLE_EQ(r.score("f1")->value, 100.0);
  EXPECT_EQ(r.examples, 2);
  EXPECT_EQ(r.data_sha256.size(), 64u);
  // "a dog": EM 0, F1 0 on q1; answering q2 is wrong too.
  auto bad = tmp.write("bad.json", R"({"q1": "a dog", "q2": "cat"})");
  auto b = evaluate(request("squad-v2", data, bad));
  EXPECT_DOUBLE_EQ(b.score("exact")->value, 0.0);
  EXPECT_DOUBLE_EQ(b.score("HasAns_exact")->value, 0.0);
  EXPECT_DOUBLE_EQ(b.score("NoAns_exact")->value, 0.0);
  // Partial overlap: "cat sat" vs gold "cat" -> P 1/2, R 1, F1 2/3.
  auto half = tmp.write("half.json", R"({"q1": "cat sat", "q2": ""})");
  auto h = evaluate(request("squad-v2", data, half));
  EXPECT_NEAR(h.score("f1")->value, 100.0 * (2.0 / 3.0 + 1.0) / 2.0, 1e-9);
}

TEST(SquadTaskTest, BootstrapCiBracketsTheScoreAndIsSeeded) {
  TempDir tmp;
  auto data = tmp.write("dev.json", kData);
  auto half = tmp.write("half.json", R"({"q1": "cat sat", "q2": ""})");
  auto req = request("squad-v2", data, half);
  req.bootstrap = 200;
  req.seed = 3;
  auto a = evaluate(req);
  auto b = evaluate(req);
  ASSERT_TRUE(a.score("f1")->ci.has_value());
  EXPECT_LE(a.score("f1")->ci->low, a.score("f1")->value);
  EXPECT_GE(a.score("f1")->ci->high, a.score("f1")->value);
  EXPECT_EQ(a.score("f1")->ci->low, b.score("f1")->ci->low);  // same seed, same CI
  EXPECT_FALSE(a.score("HasAns_f1")->ci.has_value());         // not a plain mean over all questions
}

TEST(SquadTaskTest, MalformedInputNamesFileAndProblem) {
  TempDir tmp;
  auto data = tmp.write("dev.json", kData);
  auto expect_error = [&](const std::string& pred_text, const std::string& what) {
    auto pred = tmp.write("p.json", pred_text);
    try {
      evaluate(request("squad-v2", data, pred));
      ADD_FAILURE() << "accepted " << pred_text;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("p.json"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  expect_error(R"({"q1": "cat", "q2": "", "q9": "x"})", "q9");  // unknown id
  expect_error(R"({"q1": "cat"})", "q2");                       // missing prediction
  expect_error("{\"q1\": \"cat\",\n \"q2\": ", "p.json:2");     // bad JSON, line named
  EXPECT_THROW(evaluate(request("squad-v2", data, tmp.path().string() + "/absent.json")),
               InputError);
  auto req = request("squad-v2", data, tmp.write("ok.json", R"({"q1": "cat", "q2": ""})"));
  req.options["na_prob_tresh"] = "0.5";  // typo'd option
  EXPECT_THROW(evaluate(req), InputError);
  req.options.clear();
  req.options["allow_missing"] = "maybe";
  EXPECT_THROW(evaluate(req), InputError);
}

TEST(SquadTaskTest, V11DataScoresExactMatchAndF1) {
  TempDir tmp;
  auto data = tmp.write(
      "dev.json",
      R"({"version": "1.1", "data": [{"title": "T", "paragraphs": [{"context": "c", "qas": [
    {"id": "a", "question": "?", "answers": [{"text": "Paris", "answer_start": 0}, {"text": "in Paris", "answer_start": 0}]}]}]}]})");
  auto pred = tmp.write("p.json", R"({"a": "paris!"})");
  auto r = evaluate(request("squad", data, pred));
  EXPECT_EQ(r.task, "squad-v1.1");
  EXPECT_DOUBLE_EQ(r.score("exact_match")->value, 100.0);
  EXPECT_DOUBLE_EQ(r.score("f1")->value, 100.0);
}

// The published BERT-large SQuAD 2.0 dev predictions: the official evaluate-v2.0.py gives
// EM 78.742 / F1 81.775 on this data (../shared/data/squad/SOURCES.md); UniLM Table 5 prints
// 78.9 / 81.8 for BERT_LARGE.
TEST(SquadTaskTest, RealBertLargeV2Predictions) {
  UNIEVAL_REQUIRE_SHARED("data/squad/dev-v2.0.reconstructed.json.gz");
  auto d = shared_dir() / "data/squad";
  auto r = evaluate(request("squad", (d / "dev-v2.0.reconstructed.json.gz").string(),
                            (d / "predictions/v2.0-dev.bert-large-single.json.gz").string()));
  EXPECT_EQ(r.task, "squad-v2");
  EXPECT_EQ(r.examples, 11873);
  EXPECT_NEAR(r.score("exact")->value, 78.742, 5e-4);
  EXPECT_NEAR(r.score("f1")->value, 81.775, 5e-4);
  EXPECT_NEAR(r.score("HasAns_exact")->value, 74.106, 5e-4);
  EXPECT_NEAR(r.score("HasAns_f1")->value, 80.182, 5e-4);
  EXPECT_NEAR(r.score("NoAns_exact")->value, 83.364, 5e-4);
}

TEST(SquadTaskTest, RealPublishedV11AndV2Predictions) {
  UNIEVAL_REQUIRE_SHARED("data/squad/dev-v1.1.json.gz");
  auto d = shared_dir() / "data/squad";
  struct Case {
    const char* data;
    const char* pred;
    const char* em_key;
    double em, f1;
  } cases[] = {
      {"dev-v1.1.json.gz", "predictions/v1.1-dev.bert-large-ensemble.json.gz", "exact_match",
       86.206, 92.196},
      {"dev-v1.1.json.gz", "predictions/v1.1-dev.r-net-plus-ensemble.json.gz", "exact_match",
       82.469, 88.478},
      {"dev-v2.0.reconstructed.json.gz", "predictions/v2.0-dev.bidaf-selfatt-elmo-single.json.gz",
       "exact", 65.704, 67.876},
      {"dev-v2.0.reconstructed.json.gz", "predictions/v2.0-dev.nlnet-single.json.gz", "exact",
       75.828, 78.778},
  };
  for (const auto& c : cases) {
    auto r = evaluate(request("squad", (d / c.data).string(), (d / c.pred).string()));
    EXPECT_NEAR(r.score(c.em_key)->value, c.em, 5e-4) << c.pred;
    EXPECT_NEAR(r.score("f1")->value, c.f1, 5e-4) << c.pred;
  }
}

}  // namespace
}  // namespace unieval::tasks
