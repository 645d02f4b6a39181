// The dstc7 adapter (dstc.py pipeline) and the organisers' score sheet.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "core/error.h"
#include "pipelines/evaluate.h"
#include "tasks/dstc7.h"
#include "tests/test_util.h"

namespace unieval::tasks {
namespace {

using pipelines::evaluate;  // adapters are exercised through the evaluate flow

using unieval::testing::shared_dir;
using unieval::testing::TempDir;

EvalRequest request(const std::string& data, const std::string& pred) {
  EvalRequest r;
  r.task = "dstc7";
  r.data = data;
  r.pred = pred;
  return r;
}

TEST(Dstc7TaskTest, ReferenceFreeScoresOnKeysSortedAndCleaned) {
  TempDir tmp;
  auto keys = tmp.write("keys.txt", "k2\nk1\n");
  // Extra line k3 is not a key; "don't" becomes "do n't" with clean_str.
  auto sub = tmp.write("sub.txt", "k1\t-\tI don't know\nk3\t-\tignored line\nk2\t-\tyes yes\n");
  auto r = evaluate(request(keys, sub));
  EXPECT_EQ(r.task, "dstc7");
  EXPECT_EQ(r.examples, 2);
  // Tokens: [i, do, n't, know] and [yes, yes]: 6 tokens, 5 distinct unigrams.
  EXPECT_DOUBLE_EQ(r.score("avg_len")->value, 3.0);
  EXPECT_DOUBLE_EQ(r.score("div1")->value, 5.0 / 6.0);
  // Bigrams: i-do, do-n't, n't-know, yes-yes: 4 of 4 distinct.
  EXPECT_DOUBLE_EQ(r.score("div2")->value, 1.0);
  // Unigram entropy: counts {1,1,1,1,2} over 6.
  double h = -(4 * (1.0 / 6) * std::log(1.0 / 6) + (2.0 / 6) * std::log(2.0 / 6));
  EXPECT_NEAR(r.score("entropy1")->value, h, 1e-12);
  EXPECT_EQ(r.score("nist4"), nullptr);  // no references
  // Without clean_str "don't" stays one token.
  auto req = request(keys, sub);
  req.options["clean"] = "false";
  auto raw = evaluate(req);
  EXPECT_DOUBLE_EQ(raw.score("avg_len")->value, 2.5);
}

TEST(Dstc7TaskTest, RefsFileGivesNistAndBleu) {
  TempDir tmp;
  auto keys = tmp.write("keys.txt", "k1\nk2\n");
  auto refs = tmp.write("test.refs",
                        "k1\t1|the cat sat on the mat\t1|human reply here\t2|a cat sat on a mat\n"
                        "k2\t1|i like green tea\t1|human again\t3|i love tea\n");
  auto sub = tmp.write("sub.txt", "k1\t-\tthe cat sat on the mat\nk2\t-\ti like tea\n");
  auto req = request(refs, sub);
  req.options["keys"] = keys;
  req.skip_metrics = {"meteor"};  // no METEOR resources here (without this: an error, tested below)
  auto r = evaluate(req);
  EXPECT_TRUE(std::any_of(r.notes.begin(), r.notes.end(), [](const std::string& n) {
    return n.find("--skip-metric meteor") != std::string::npos;
  }));
  ASSERT_NE(r.score("nist4"), nullptr);
  ASSERT_NE(r.score("bleu4"), nullptr);
  EXPECT_GT(r.score("nist4")->value, 0);
  EXPECT_GT(r.score("bleu1")->value, 0.5);
  EXPECT_LE(r.score("bleu4")->value, 1.0);
  // Without --skip-metric, METEOR without its resources is an error naming what to set.
  unsetenv("UNIEVAL_METEOR_DATA");
  auto strict = request(refs, sub);
  strict.options["keys"] = keys;
  try {
    evaluate(strict);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--option meteor_data=DIR"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("--skip-metric meteor"), std::string::npos) << e.what();
  }
  // A key without references is an error naming the refs file.
  auto refs_missing = tmp.write("short.refs", "k1\t1|the cat\t1|h\n");
  auto bad = request(refs_missing, sub);
  bad.options["keys"] = keys;
  bad.skip_metrics = {"meteor"};
  try {
    evaluate(bad);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("k2"), std::string::npos) << e.what();
  }
}

TEST(Dstc7TaskTest, MalformedInputIsNamed) {
  TempDir tmp;
  auto keys = tmp.write("keys.txt", "k1\nk2\n");
  auto missing = tmp.write("sub.txt", "k1\t-\thello\n");
  try {
    evaluate(request(keys, missing));
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("sub.txt"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("k2"), std::string::npos) << e.what();
  }
  auto no_tab = tmp.write("sub2.txt", "k1 hello\n");
  try {
    evaluate(request(keys, no_tab));
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("sub2.txt:1"), std::string::npos) << e.what();
  }
  auto sheet = tmp.write("sheet.tsv", "Name\tn_lines\tnist4\nA\t2208\t1.5\nB\t2208\n");
  try {
    read_dstc7_score_sheet(sheet);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("sheet.tsv:3"), std::string::npos) << e.what();
  }
}

// SOURCES.md: the constant baseline restricted to the 2,208 keys reproduces the sheet's
// reference-free cells only with DSTC7's clean_str ("don't" -> "do n't", 8 tokens).
TEST(Dstc7TaskTest, RealConstantBaselineMatchesTheOrganisersSheet) {
  UNIEVAL_REQUIRE_SHARED("data/dstc7/constant-baseline.test.convos.txt.gz");
  auto d = shared_dir() / "data/dstc7";
  auto r = evaluate(request((d / "test.2k.keys.txt.gz").string(),
                            (d / "constant-baseline.test.convos.txt.gz").string()));
  EXPECT_EQ(r.examples, 2208);
  auto sheet = read_dstc7_score_sheet((d / "dstc7-task2-automatic-scores.tsv").string());
  const auto& row = sheet.at("Baseline (constant)");
  for (const char* k : {"entropy1", "entropy2", "entropy3", "entropy4", "div1", "div2", "avg_len"})
    EXPECT_NEAR(r.score(k)->value, row.at(k), 1e-9 * std::max(1.0, row.at(k))) << k;
  EXPECT_NEAR(r.score("entropy1")->value, std::log(8.0), 1e-12);
}

TEST(Dstc7TaskTest, RealScoreSheetHasTheTable10Rows) {
  UNIEVAL_REQUIRE_SHARED("data/dstc7/dstc7-task2-automatic-scores.tsv");
  auto sheet = read_dstc7_score_sheet(
      (shared_dir() / "data/dstc7/dstc7-task2-automatic-scores.tsv").string());
  // UniLM Table 10 prints the best system as 2.523 / 1.83 / 8.07 / 9.030 / 15.133 (TeamB-Primary).
  const auto& b = sheet.at("TeamB-Primary");
  EXPECT_NEAR(b.at("nist4"), 2.523, 5e-4);
  EXPECT_NEAR(100 * b.at("bleu4"), 1.83, 5e-3);
  EXPECT_NEAR(b.at("avg_len"), 15.133, 5e-4);
  EXPECT_EQ(b.at("n_lines"), 2208);
}

}  // namespace
}  // namespace unieval::tasks
