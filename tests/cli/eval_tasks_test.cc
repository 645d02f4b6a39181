// `unieval eval` on the squad-qg and GPT-paper task adapters, through the binary: exit codes,
// JSON, and no partial --out file on bad input.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/test_util.h"

namespace {

using unieval::testing::run_cli;
using unieval::testing::shq;
using unieval::testing::TempDir;

TEST(CliEvalTasksTest, SquadQgJsonAndBadInput) {
  TempDir tmp;
  tmp.write("qg/src-test.txt", "The cat sat .\nthe cat sat .\n");
  tmp.write("qg/tgt-test.txt", "what sat on the mat ?\nwho sat on the mat ?\n");
  auto pred = tmp.write("p.txt", "x\nWho sat on the mat ?\n");
  auto r = run_cli("eval --task squad-qg --data " + shq((tmp.path() / "qg").string()) + " --pred " + shq(pred) + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["task"], "squad-qg");
  EXPECT_EQ(j["data"]["examples"], 1);
  EXPECT_DOUBLE_EQ(j["summary"]["rougeL"].get<double>(), 1.0);

  auto out = (tmp.path() / "r.json").string();
  auto bad = run_cli("eval --task squad-qg --data " + shq((tmp.path() / "qg").string()) + " --pred " +
                     shq(tmp.write("short.txt", "x\n")) + " --out " + shq(out));
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("short.txt"), std::string::npos) << bad.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(CliEvalTasksTest, StoryClozeBadLabelNamesLine) {
  TempDir tmp;
  auto data = tmp.write("cloze.csv", "InputStoryid,AnswerRightEnding\ns1,1\ns2,2\n");
  auto ok = run_cli("eval --task story-cloze --data " + shq(data) + " --pred " + shq(tmp.write("p.txt", "1\n1\n")) + " --json");
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_DOUBLE_EQ(nlohmann::json::parse(ok.out)["summary"]["accuracy"].get<double>(), 0.5);
  auto bad = run_cli("eval --task story-cloze --data " + shq(data) + " --pred " + shq(tmp.write("b.txt", "1\n3\n")));
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("b.txt:2"), std::string::npos) << bad.err;
}

}  // namespace
