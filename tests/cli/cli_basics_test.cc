#include <gtest/gtest.h>

#include "tests/test_util.h"

namespace unieval {
namespace {

using testing::run_cli;

TEST(CliBasicsTest, HelpListsEveryCommand) {
  auto r = run_cli("--help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* c : {"score", "eval", "tokenize", "encode", "finetune", "decode", "demo",
                        "reproduce", "table", "compare"})
    EXPECT_NE(r.out.find(c), std::string::npos) << c;
}

TEST(CliBasicsTest, UnknownCommandExitsTwo) {
  auto r = run_cli("frobnicate");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown command"), std::string::npos);
}

TEST(CliBasicsTest, ScoreUnknownMetricExitsTwo) {
  auto r = run_cli("score --metric nonsense --hyp x --ref y");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown metric"), std::string::npos) << r.err;
}

TEST(CliBasicsTest, ScoreHelpWorks) {
  auto r = run_cli("score --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("--metric"), std::string::npos);
}

}  // namespace
}  // namespace unieval
