// `unieval reproduce`: the papers' published tables, with ours where material exists.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/test_util.h"

namespace {

using unieval::testing::run_cli;
using unieval::testing::shared_dir;
using unieval::testing::shq;
using unieval::testing::TempDir;

TEST(CliReproduceTest, UnilmTable10PrintsThePublishedValues) {
  TempDir empty;  // no material: published values only
  auto r = run_cli("reproduce --paper unilm --table 10 --data " + shq(empty.path().string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* v : {"2.523", "1.83", "8.07", "9.030", "15.133", "2.669", "4.39", "8.27", "9.195",
                        "14.807", "2.650", "3.13", "8.31", "10.445", "0.167", "0.670", "18.76"})
    EXPECT_NE(r.out.find(v), std::string::npos) << v;
  EXPECT_NE(r.out.find("published value only"), std::string::npos);
}

TEST(CliReproduceTest, RealUnilmTable10WithTheSheet) {
  UNIEVAL_REQUIRE_SHARED("data/dstc7/dstc7-task2-automatic-scores.tsv");
  auto r = run_cli("reproduce --paper unilm --table 10 --data " + shq((shared_dir() / "data").string()) + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_FALSE(j["mismatch"].get<bool>());
  EXPECT_EQ(j["rows"][0]["cells"][0]["status"], "match");  // Best System NIST-4 2.523
  EXPECT_EQ(j["checks"][0]["system"], "Baseline (constant)");
}

TEST(CliReproduceTest, RealUnilmTable5ShowsTheEmDifferenceAndFails) {
  UNIEVAL_REQUIRE_SHARED("data/squad/predictions/v2.0-dev.bert-large-single.json.gz");
  auto r = run_cli("reproduce --paper unilm --table 5 --data " + shq((shared_dir() / "data").string()));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;  // EM 78.742 vs printed 78.9
  EXPECT_NE(r.out.find("78.742"), std::string::npos);
  EXPECT_NE(r.out.find("-0.158"), std::string::npos);
  EXPECT_NE(r.out.find("81.775"), std::string::npos);
}

TEST(CliReproduceTest, BadArgumentsExitTwo) {
  EXPECT_EQ(run_cli("reproduce --paper unilm --table 42").exit_code, 2);
  EXPECT_EQ(run_cli("reproduce --paper nope --table 1").exit_code, 2);
  EXPECT_EQ(run_cli("reproduce --paper unilm").exit_code, 2);
  auto list = run_cli("reproduce --list");
  EXPECT_EQ(list.exit_code, 0);
  EXPECT_NE(list.out.find("ernie-gen 5"), std::string::npos);
}

}  // namespace
