// `unieval table`: leaderboards from result files.
#include <gtest/gtest.h>

#include "tests/test_util.h"

namespace {

using unieval::testing::run_cli;
using unieval::testing::shq;
using unieval::testing::TempDir;

std::string result(const TempDir& tmp, const std::string& name, double exact, const std::string& sig = "m|v:1") {
  return tmp.write(name + ".json", R"({"schema_version": 1, "tool": {"version": "0"}, "task": "squad-v2", "split": "dev",
    "system": ")" + name + R"(", "metrics": [{"id": "m", "signature": ")" + sig + R"("}],
    "scores": [{"name": "exact", "value": )" + std::to_string(exact) + R"(, "metric": "m", "unit": "percent"}]})");
}

TEST(CliTableTest, FormatsSortedWithBestAndSignature) {
  TempDir tmp;
  auto a = result(tmp, "alpha", 60), b = result(tmp, "beta", 70);
  auto md = run_cli("table " + shq(a) + " " + shq(b));
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_LT(md.out.find("beta"), md.out.find("alpha"));
  EXPECT_NE(md.out.find("**70.00**"), std::string::npos);
  EXPECT_NE(md.out.find("signature m: m|v:1"), std::string::npos);
  for (const char* f : {"latex", "html", "csv"}) {
    auto r = run_cli("table " + shq(a) + " " + shq(b) + " --format " + f);
    EXPECT_EQ(r.exit_code, 0) << f;
    EXPECT_NE(r.out.find("70.00"), std::string::npos) << f;
  }
  EXPECT_NE(run_cli("table " + shq(a) + " --format latex").out.find("\\begin{tabular}"), std::string::npos);
  auto out = (tmp.path() / "t.html").string();
  EXPECT_EQ(run_cli("table " + shq(a) + " --format html --out " + shq(out)).exit_code, 0);
}

TEST(CliTableTest, MixedSignaturesAndBadFormatAreInputErrors) {
  TempDir tmp;
  auto a = result(tmp, "alpha", 60), b = result(tmp, "beta", 70, "m|v:2");
  EXPECT_EQ(run_cli("table " + shq(a) + " " + shq(b)).exit_code, 2);
  EXPECT_EQ(run_cli("table " + shq(a) + " --format docx").exit_code, 2);
  EXPECT_EQ(run_cli("table").exit_code, 2);
}

}  // namespace
