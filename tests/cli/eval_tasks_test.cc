// `unieval eval` on the squad-qg and GPT-paper task adapters, through the binary: exit codes,
// JSON, and no partial --out file on bad input.
#include <gtest/gtest.h>

#include <algorithm>
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
  auto r = run_cli("eval --task squad-qg --data " + shq((tmp.path() / "qg").string()) + " --pred " +
                   shq(pred) + " --skip-metric meteor --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["task"], "squad-qg");
  EXPECT_EQ(j["data"]["examples"], 1);
  EXPECT_DOUBLE_EQ(j["summary"]["rougeL"].get<double>(), 1.0);

  auto out = (tmp.path() / "r.json").string();
  auto bad =
      run_cli("eval --task squad-qg --data " + shq((tmp.path() / "qg").string()) + " --pred " +
              shq(tmp.write("short.txt", "x\n")) + " --skip-metric meteor --out " + shq(out));
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("short.txt"), std::string::npos) << bad.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}

// A squad-qg prediction file with empty lines and stutters: the result's diagnostics count them
// (over the text as scored: stripped, fix_tokenization, lower-cased), the notes and stderr warn,
// and the text output prints the diagnostics.
TEST(CliEvalTasksTest, SquadQgDiagnosticsCountEmptiesAndRepeatsAndWarn) {
  TempDir tmp;
  std::string src, tgt, pred;
  for (int i = 0; i < 10; ++i) {
    src += "sentence number " + std::to_string(i) + " is here .\n";
    tgt += "what is number " + std::to_string(i) + " ?\n";
  }
  // Two empty (one only spaces), two with a word 3+ times in a row, six ordinary.
  pred = "\n   \ns s s\nWhat what WHAT is it ?\n";
  for (int i = 4; i < 10; ++i) pred += "what is number " + std::to_string(i) + " ?\n";
  tmp.write("qg/src-test.txt", src);
  tmp.write("qg/tgt-test.txt", tgt);
  const std::string base = "eval --task squad-qg --data " + shq((tmp.path() / "qg").string()) +
                           " --pred " + shq(tmp.write("p.txt", pred)) + " --skip-metric meteor";
  auto r = run_cli(base + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.contains("diagnostics")) << r.out;
  const auto& d = j["diagnostics"];
  EXPECT_EQ(d["hypotheses"], 10);
  EXPECT_EQ(d["empty"], 2);
  EXPECT_EQ(d["repeated"], 2);
  EXPECT_EQ(d["distinct"], 9);  // both empty lines are "" once stripped
  EXPECT_EQ(d["most_common"]["text"], "");
  EXPECT_EQ(d["most_common"]["count"], 2);
  EXPECT_DOUBLE_EQ(d["mean_ref_words"].get<double>(), 5.0);
  EXPECT_DOUBLE_EQ(d["mean_hyp_words"].get<double>(), (3 + 6 + 6 * 5) / 10.0);
  EXPECT_DOUBLE_EQ(d["length_ratio"].get<double>(), 3.9 / 5.0);
  // 20% empty (> 1%) and 20% repeated (> 5%): a note each, and "warning: ..." on stderr.
  std::vector<std::string> notes;
  for (const auto& n : j["notes"]) notes.push_back(n.get<std::string>());
  for (const char* w : {"2 of 10 hypotheses (20.0%) are empty or whitespace only",
                        "2 of 10 hypotheses (20.0%) repeat a word 3 or more times in a row"}) {
    EXPECT_TRUE(std::any_of(notes.begin(), notes.end(),
                            [&](const std::string& n) { return n.find(w) != std::string::npos; }))
        << w << "\n"
        << j["notes"].dump();
    EXPECT_NE(r.err.find(std::string("warning: ") + w), std::string::npos) << r.err;
  }
  EXPECT_EQ(r.err.find("times as long"), std::string::npos) << r.err;
  // The text output prints them.
  auto text = run_cli(base);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find(
                "diagnostics: 10 hypotheses, 2 empty, 2 with a word 3+ times in a row, 9 distinct"),
            std::string::npos)
      << text.out;
  // A classification task has no diagnostics.
  auto cls = run_cli("eval --task story-cloze --data " +
                     shq(tmp.write("c.csv", "InputStoryid,AnswerRightEnding\ns1,1\n")) +
                     " --pred " + shq(tmp.write("c.txt", "1\n")) + " --json");
  ASSERT_EQ(cls.exit_code, 0) << cls.err;
  EXPECT_FALSE(nlohmann::json::parse(cls.out).contains("diagnostics"));
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
  const std::string base =
      "eval --task squad-qg --data " + shq((tmp.path() / "qg").string()) + " --pred " + shq(pred);
  const auto out = (tmp.path() / "r.json").string();
  auto refused = run_cli(base + " --json --out " + shq(out));
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_TRUE(refused.out.empty()) << refused.out;
  for (const char* part :
       {"METEOR", "--option meteor_data=DIR", "UNIEVAL_METEOR_DATA", "--skip-metric meteor"})
    EXPECT_NE(refused.err.find(part), std::string::npos) << part << ": " << refused.err;
  EXPECT_FALSE(std::filesystem::exists(out));

  auto skipped = run_cli(base + " --skip-metric meteor --json --out " + shq(out));
  ASSERT_EQ(skipped.exit_code, 0) << skipped.err;
  auto j = nlohmann::json::parse(skipped.out);
  EXPECT_FALSE(j["summary"].contains("meteor"));
  EXPECT_TRUE(j["summary"].contains("bleu4"));
  ASSERT_TRUE(j.contains("notes"));
  bool noted = false;
  for (const auto& n : j["notes"])
    noted |= n.get<std::string>().find("--skip-metric meteor") != std::string::npos;
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
  auto ok = run_cli("eval --task story-cloze --data " + shq(data) + " --pred " +
                    shq(tmp.write("p.txt", "1\n1\n")) + " --json");
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_DOUBLE_EQ(nlohmann::json::parse(ok.out)["summary"]["accuracy"].get<double>(), 0.5);
  auto bad = run_cli("eval --task story-cloze --data " + shq(data) + " --pred " +
                     shq(tmp.write("b.txt", "1\n3\n")));
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("b.txt:2"), std::string::npos) << bad.err;
}

}  // namespace
