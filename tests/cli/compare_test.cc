// `unieval compare`: the CI regression gate on real SQuAD results built with `unieval eval`.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/test_util.h"

namespace {

using unieval::testing::run_cli;
using unieval::testing::shared_dir;
using unieval::testing::shq;
using unieval::testing::TempDir;

std::string eval_squad(const TempDir& tmp, const std::string& pred, const std::string& name) {
  auto d = shared_dir() / "data/squad";
  std::string out = (tmp.path() / (name + ".json")).string();
  auto r =
      run_cli("eval --task squad --data " + shq((d / "dev-v2.0.reconstructed.json.gz").string()) +
              " --pred " + shq((d / "predictions" / pred).string()) + " --system " + name +
              " --out " + shq(out));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return out;
}

TEST(CliCompareTest, SameResultPassesRealDropFails) {
  UNIEVAL_REQUIRE_SHARED("data/squad/predictions/v2.0-dev.bidaf-selfatt-elmo-single.json.gz");
  TempDir tmp;
  auto bert = eval_squad(tmp, "v2.0-dev.bert-large-single.json.gz", "BERT");
  auto bidaf = eval_squad(tmp, "v2.0-dev.bidaf-selfatt-elmo-single.json.gz", "BIDAF");
  auto same = run_cli("compare " + shq(bert) + " " + shq(bert));
  EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
  EXPECT_NE(same.out.find("result: ok"), std::string::npos);
  auto drop = run_cli("compare " + shq(bert) + " " + shq(bidaf));
  EXPECT_EQ(drop.exit_code, 1) << drop.out << drop.err;
  EXPECT_NE(drop.out.find("REGRESSION"), std::string::npos);
  // BiDAF is 13.04 EM / 13.90 F1 below BERT: a wide enough tolerance lets it pass.
  auto tolerated = run_cli("compare " + shq(bert) + " " + shq(bidaf) + " --tolerance '*=15'");
  EXPECT_EQ(tolerated.exit_code, 0) << tolerated.out;
  auto improved = run_cli("compare " + shq(bidaf) + " " + shq(bert) + " --json");
  EXPECT_EQ(improved.exit_code, 0);
  auto j = nlohmann::json::parse(improved.out);
  EXPECT_EQ(j["rows"][0]["status"], "improved");
}

TEST(CliCompareTest, IncompatibleSignaturesExitTwo) {
  TempDir tmp;
  auto a = tmp.write("a.json", R"({"schema_version": 1, "tool": {"version": "0"}, "task": "t",
    "metrics": [{"id": "m", "signature": "m|x:1"}], "scores": [{"name": "s", "value": 1, "metric": "m"}]})");
  auto b = tmp.write("b.json", R"({"schema_version": 1, "tool": {"version": "0"}, "task": "t",
    "metrics": [{"id": "m", "signature": "m|x:2"}], "scores": [{"name": "s", "value": 1, "metric": "m"}]})");
  auto r = run_cli("compare " + shq(a) + " " + shq(b));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("signature differs"), std::string::npos) << r.err;
  auto bad = run_cli("compare " + shq(a));
  EXPECT_EQ(bad.exit_code, 2);
  auto typo = run_cli("compare " + shq(a) + " " + shq(a) + " --tolerance S=1");
  EXPECT_EQ(typo.exit_code, 2);
  auto malformed = run_cli("compare " + shq(a) + " " + shq(tmp.write("c.json", "{\n\"x\": ")));
  EXPECT_EQ(malformed.exit_code, 2);
  EXPECT_NE(malformed.err.find("c.json:2"), std::string::npos) << malformed.err;
}

// The committed CI baseline (official evaluate-v2.0.py values) against a fresh run.
TEST(CliCompareTest, CiBaselineHolds) {
  UNIEVAL_REQUIRE_SHARED("data/squad/predictions/v2.0-dev.bert-large-single.json.gz");
  TempDir tmp;
  auto bert = eval_squad(tmp, "v2.0-dev.bert-large-single.json.gz", "BERT");
  auto r = run_cli("compare " +
                   shq(std::string(UNIEVAL_SOURCE_DIR) + "/ci/baselines/squad-v2-bert-large.json") +
                   " " + shq(bert) + " --tolerance '*=0.0005'");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

// Folder datasets (squad-qg: src-/tgt-test.txt in a folder): a subset of the test set is not the
// test set (exit 2, not a REGRESSION), a changed file in the folder is other data (exit 2), the
// same run passes (exit 0) and worse predictions on the same data fail (exit 1).
TEST(CliCompareTest, FolderDataSubsetIsNotComparable) {
  TempDir tmp;
  std::string src, tgt, good, bad;
  for (int i = 0; i < 40; ++i) {
    const std::string n = std::to_string(i);
    src += "the cat number " + n + " sat on the mat .\n";
    tgt += "where did cat " + n + " sit ?\n";
    good += "where did cat " + n + (i % 3 ? " sit ?\n" : " sat ?\n");
    bad += "what is " + n + " ?\n";
  }
  auto head = [](const std::string& text, int lines) {
    size_t at = 0;
    for (int i = 0; i < lines; ++i) at = text.find('\n', at) + 1;
    return text.substr(0, at);
  };
  tmp.write("full/src-test.txt", src);
  tmp.write("full/tgt-test.txt", tgt);
  tmp.write("subset/src-test.txt", head(src, 12));
  tmp.write("subset/tgt-test.txt", head(tgt, 12));
  tmp.write("edited/src-test.txt", src);
  tmp.write("edited/tgt-test.txt", "where did the cat sit ?\n" + tgt.substr(tgt.find('\n') + 1));
  auto eval = [&](const std::string& data, const std::string& pred, const std::string& name) {
    std::string out = (tmp.path() / (name + ".json")).string();
    auto r = run_cli("eval --task squad-qg --data " + shq((tmp.path() / data).string()) +
                     " --pred " + shq(tmp.write(name + ".txt", pred)) + " --system " + name +
                     " --skip-metric meteor --out " + shq(out));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return out;
  };
  auto full = eval("full", good, "full");
  auto subset = eval("subset", head(good, 12), "subset");
  auto edited = eval("edited", good, "edited");
  auto worse = eval("full", bad, "worse");
  auto j = nlohmann::json::parse(
      unieval::testing::run_cli("compare " + shq(full) + " " + shq(full) + " --json").out);
  EXPECT_EQ(j["compatible"], true);
  auto r = run_cli("compare " + shq(full) + " " + shq(subset));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("example count differs: 40 vs 12"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("data differs"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("REGRESSION"), std::string::npos) << r.out;
  auto e = run_cli("compare " + shq(full) + " " + shq(edited));
  EXPECT_EQ(e.exit_code, 2) << e.out << e.err;
  EXPECT_NE(e.err.find("data differs"), std::string::npos) << e.err;
  EXPECT_EQ(e.err.find("example count"), std::string::npos) << e.err;
  EXPECT_EQ(run_cli("compare " + shq(full) + " " + shq(full)).exit_code, 0);
  auto w = run_cli("compare " + shq(full) + " " + shq(worse));
  EXPECT_EQ(w.exit_code, 1) << w.out << w.err;
  EXPECT_NE(w.out.find("REGRESSION"), std::string::npos);
}

// Per-score tolerances from a file and from the baseline itself; judging by the interval.
TEST(CliCompareTest, TolerancesFileAndBootstrapInterval) {
  TempDir tmp;
  auto result = [&](const std::string& name, double v, const std::string& extra) {
    return tmp.write(
        name + ".json",
        R"({"schema_version": 1, "tool": {"version": "0"}, "task": "t", "split": "test",
      "data": {"sha256": ")" +
            std::string(64, 'a') + R"(", "examples": 100},
      "metrics": [{"id": "m", "signature": "m|x:1"}],
      "scores": [{"name": "s", "value": )" +
            std::to_string(v) + R"(, "metric": "m", "unit": "percent",
                  "ci": {"low": 48.0, "high": 52.5}}])" +
            extra + "}");
  };
  auto base = result("base", 50, ""), cur = result("cur", 49, "");
  EXPECT_EQ(run_cli("compare " + shq(base) + " " + shq(cur)).exit_code, 1);
  // Inside the baseline's 95% interval [48, 52.5]: not a regression with --by-ci.
  auto ci = run_cli("compare " + shq(base) + " " + shq(cur) + " --by-ci");
  EXPECT_EQ(ci.exit_code, 0) << ci.out;
  EXPECT_NE(ci.out.find("within interval"), std::string::npos) << ci.out;
  EXPECT_EQ(
      run_cli("compare " + shq(base) + " " + shq(result("low", 47.5, "")) + " --by-ci").exit_code,
      1);
  auto tol = tmp.write("tol.json", R"({"s": 1.5})");
  EXPECT_EQ(
      run_cli("compare " + shq(base) + " " + shq(cur) + " --tolerances " + shq(tol)).exit_code, 0);
  EXPECT_EQ(run_cli("compare " + shq(base) + " " + shq(cur) + " --tolerances " + shq(tol) +
                    " --tolerance s=0.5")
                .exit_code,
            1);
  auto with_tol = result("base2", 50, R"(, "tolerances": {"*": 2})");
  EXPECT_EQ(run_cli("compare " + shq(with_tol) + " " + shq(cur)).exit_code, 0);
  EXPECT_EQ(run_cli("compare " + shq(base) + " " + shq(cur) + " --tolerances " +
                    shq(tmp.write("bad.json", R"({"s": "x"})")))
                .exit_code,
            2);
  EXPECT_EQ(run_cli("compare " + shq(base) + " " + shq(cur) + " --tolerances " +
                    shq(tmp.write("typo.json", R"({"S": 1})")))
                .exit_code,
            2);
  // A result that records no data digest is not comparable.
  auto nohash =
      tmp.write("nohash.json",
                R"({"schema_version": 1, "tool": {"version": "0"}, "task": "t", "split": "test",
      "data": {"examples": 100}, "metrics": [{"id": "m", "signature": "m|x:1"}],
      "scores": [{"name": "s", "value": 50, "metric": "m", "unit": "percent"}]})");
  auto nh = run_cli("compare " + shq(base) + " " + shq(nohash));
  EXPECT_EQ(nh.exit_code, 2);
  EXPECT_NE(nh.err.find("data identity unknown"), std::string::npos) << nh.err;
}

}  // namespace
