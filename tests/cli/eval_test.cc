// `unieval eval`: the real SQuAD target and input errors, through the binary.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/test_util.h"

namespace {

using unieval::testing::run_cli;
using unieval::testing::shared_dir;
using unieval::testing::shq;
using unieval::testing::TempDir;

TEST(CliEvalTest, SquadV2BertLargeJson) {
  UNIEVAL_REQUIRE_SHARED("data/squad/dev-v2.0.reconstructed.json.gz");
  auto d = shared_dir() / "data/squad";
  auto r =
      run_cli("eval --task squad --data " + shq((d / "dev-v2.0.reconstructed.json.gz").string()) +
              " --pred " + shq((d / "predictions/v2.0-dev.bert-large-single.json.gz").string()) +
              " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["task"], "squad-v2");
  EXPECT_NEAR(j["summary"]["exact"].get<double>(), 78.742, 5e-4);
  EXPECT_NEAR(j["summary"]["f1"].get<double>(), 81.775, 5e-4);
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["data"]["sha256"].get<std::string>().substr(0, 8), "82e9fa04");  // SOURCES.md
}

TEST(CliEvalTest, WritesResultFileAndHumanSummary) {
  TempDir tmp;
  auto data = tmp.write(
      "dev.json",
      R"({"version": "1.1", "data": [{"title": "T", "paragraphs": [{"context": "c", "qas": [
    {"id": "a", "question": "?", "answers": [{"text": "Paris", "answer_start": 0}]}]}]}]})");
  auto pred = tmp.write("p.json", R"({"a": "Paris"})");
  auto out = (tmp.path() / "r.json").string();
  auto r = run_cli("eval --task squad --data " + shq(data) + " --pred " + shq(pred) + " --out " +
                   shq(out) + " --system mine");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("exact_match"), std::string::npos);
  EXPECT_NE(r.out.find("100.000000"), std::string::npos);
  std::ifstream in(out);
  auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["system"], "mine");
  EXPECT_EQ(j["task"], "squad-v1.1");
}

TEST(CliEvalTest, BadInputExitsTwoNamingTheProblem) {
  TempDir tmp;
  auto data = tmp.write(
      "dev.json",
      R"({"version": "1.1", "data": [{"title": "T", "paragraphs": [{"context": "c", "qas": [
    {"id": "a", "question": "?", "answers": [{"text": "Paris", "answer_start": 0}]}]}]}]})");
  auto pred = tmp.write("p.json", R"({"a": "Paris", "zz": "x"})");
  auto r = run_cli("eval --task squad --data " + shq(data) + " --pred " + shq(pred));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("zz"), std::string::npos) << r.err;
  auto unknown = run_cli("eval --task nosuch --data " + shq(data) + " --pred " + shq(pred));
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("unknown task"), std::string::npos) << unknown.err;
  auto missing = run_cli("eval --task squad --data " + shq(data) + " --pred " +
                         shq(tmp.path().string() + "/none.json"));
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("none.json"), std::string::npos);
}

TEST(CliEvalTest, ListShowsTasks) {
  auto r = run_cli("eval --list");
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("squad-v2"), std::string::npos);
  EXPECT_NE(r.out.find("dstc7"), std::string::npos);
}

}  // namespace
