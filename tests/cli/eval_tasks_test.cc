// `unieval eval` on the squad-qg and GPT-paper task adapters, through the binary: exit codes,
// JSON, and no partial --out file on bad input.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
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
  auto r = run_cli("eval --task squad-qg --data " + shq((tmp.path() / "qg").string()) + " --pred " + shq(pred) +
                   " --skip-metric meteor --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["task"], "squad-qg");
  EXPECT_EQ(j["data"]["examples"], 1);
  EXPECT_DOUBLE_EQ(j["summary"]["rougeL"].get<double>(), 1.0);

  auto out = (tmp.path() / "r.json").string();
  auto bad = run_cli("eval --task squad-qg --data " + shq((tmp.path() / "qg").string()) + " --pred " +
                     shq(tmp.write("short.txt", "x\n")) + " --skip-metric meteor --out " + shq(out));
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("short.txt"), std::string::npos) << bad.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(CliEvalTasksTest, MeteorPolicyErrorAndOptOut) {
  // One policy with one consequence: a metric set with METEOR and no METEOR resources is exit 2
  // naming the option, the variable and the opt-out, and writes nothing; --skip-metric meteor
  // scores the rest and records the omission in the notes; a resource folder without METEOR's
  // files names the missing file.
  unsetenv("UNIEVAL_METEOR_DATA");
  TempDir tmp;
  tmp.write("qg/src-test.txt", "The cat sat .\n");
  tmp.write("qg/tgt-test.txt", "who sat on the mat ?\n");
  auto pred = tmp.write("p.txt", "Who sat on the mat ?\n");
  const std::string base = "eval --task squad-qg --data " + shq((tmp.path() / "qg").string()) + " --pred " + shq(pred);
  const auto out = (tmp.path() / "r.json").string();
  auto refused = run_cli(base + " --json --out " + shq(out));
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_TRUE(refused.out.empty()) << refused.out;
  for (const char* part : {"METEOR", "--option meteor_data=DIR", "UNIEVAL_METEOR_DATA", "--skip-metric meteor"})
    EXPECT_NE(refused.err.find(part), std::string::npos) << part << ": " << refused.err;
  EXPECT_FALSE(std::filesystem::exists(out));

  auto skipped = run_cli(base + " --skip-metric meteor --json --out " + shq(out));
  ASSERT_EQ(skipped.exit_code, 0) << skipped.err;
  auto j = nlohmann::json::parse(skipped.out);
  EXPECT_FALSE(j["summary"].contains("meteor"));
  EXPECT_TRUE(j["summary"].contains("bleu4"));
  ASSERT_TRUE(j.contains("notes"));
  bool noted = false;
  for (const auto& n : j["notes"]) noted |= n.get<std::string>().find("--skip-metric meteor") != std::string::npos;
  EXPECT_TRUE(noted) << j["notes"].dump();
  std::ifstream written(out);
  EXPECT_EQ(nlohmann::json::parse(written)["notes"], j["notes"]);

  auto empty_dir = run_cli(base + " --option meteor_data=" + shq(tmp.path().string()) + " --json");
  EXPECT_EQ(empty_dir.exit_code, 2);
  EXPECT_NE(empty_dir.err.find("function/english.words"), std::string::npos) << empty_dir.err;
  EXPECT_NE(empty_dir.err.find("--skip-metric meteor"), std::string::npos) << empty_dir.err;

  // Not a metric of the task's set.
  auto typo = run_cli(base + " --skip-metric meteorr");
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_NE(typo.err.find("meteorr"), std::string::npos) << typo.err;

  // --help documents the opt-out.
  auto help = run_cli("eval --help");
  EXPECT_NE(help.out.find("--skip-metric"), std::string::npos);
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
