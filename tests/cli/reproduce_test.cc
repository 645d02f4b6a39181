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
  for (const char* v :
       {"2.523", "1.83", "8.07", "9.030", "15.133", "2.669", "4.39", "8.27", "9.195", "14.807",
        "2.650", "3.13", "8.31", "10.445", "0.167", "0.670", "18.76"})
    EXPECT_NE(r.out.find(v), std::string::npos) << v;
  EXPECT_NE(r.out.find("published value only"), std::string::npos);
}

TEST(CliReproduceTest, RealUnilmTable10WithTheSheet) {
  UNIEVAL_REQUIRE_SHARED("data/dstc7/dstc7-task2-automatic-scores.tsv");
  auto r = run_cli("reproduce --paper unilm --table 10 --data " +
                   shq((shared_dir() / "data").string()) + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_FALSE(j["mismatch"].get<bool>());
  EXPECT_EQ(j["rows"][0]["cells"][0]["status"], "match");  // Best System NIST-4 2.523
  EXPECT_EQ(j["checks"][0]["system"], "Baseline (constant)");
}

TEST(CliReproduceTest, RealUnilmTable5ShowsTheEmDifferenceAndFails) {
  UNIEVAL_REQUIRE_SHARED("data/squad/predictions/v2.0-dev.bert-large-single.json.gz");
  auto r =
      run_cli("reproduce --paper unilm --table 5 --data " + shq((shared_dir() / "data").string()));
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

// A result in --outputs DIR that the row reads but that fills none of its cells (another task's,
// or without the row's metrics) is an error naming the file, not a row of dashes and exit 0; a
// result file whose number overflows a double is an input error too, not an internal one.
TEST(CliReproduceTest, BrokenOutputsResultExitsTwoNamingTheFile) {
  TempDir out, empty;
  auto result = [](const std::string& value) {
    return R"({"schema_version":1,"tool":{"version":"0"},"task":"cnndm","split":"dev",)"
           R"("metrics":[{"id":"rouge","signature":"x"}],"scores":[{"name":"rouge1_f","value":)" +
           value + R"(,"metric":"rouge","unit":"percent","higher_is_better":true}]})";
  };
  const std::string cmd = "reproduce --paper unilm --table 5 --data " + shq(empty.path().string()) +
                          " --outputs " + shq(out.path().string());
  const std::string path = out.write("unilm.result.json", result("40.0"));
  auto r = run_cli(cmd);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find(path), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("fills no cell of row 'UniLM'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("squad-v2 exact"), std::string::npos)
      << "says what the row needs: " << r.err;
  EXPECT_EQ(r.out, "") << "no table printed";

  out.write("unilm.result.json", result("1e999"));
  auto o = run_cli(cmd);
  EXPECT_EQ(o.exit_code, 2) << o.err;
  EXPECT_NE(o.err.find(path), std::string::npos) << o.err;
}

}  // namespace
