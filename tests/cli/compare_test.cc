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
  auto r = run_cli("eval --task squad --data " + shq((d / "dev-v2.0.reconstructed.json.gz").string()) +
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
  auto r = run_cli("compare " + shq(std::string(UNIEVAL_SOURCE_DIR) + "/ci/baselines/squad-v2-bert-large.json") +
                   " " + shq(bert) + " --tolerance '*=0.0005'");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

}  // namespace
