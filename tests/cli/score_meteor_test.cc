// `unieval score --metric meteor`: golden records through the CLI (JSON fields checked from
// outside), --stats, options and errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>

#include "tests/test_util.h"

namespace unieval::testing {
namespace {

std::string data_dir() { return (shared_dir() / "data/meteor").string(); }

const char* kGoldenArgs =
    " --modules exact,stem,synonym --weights 1.0,0.6,0.8 --norm --json --stats --meteor-data ";

void expect_field(const nlohmann::json& expected, const nlohmann::json& actual,
                  const std::string& what) {
  if (expected.is_string()) {
    EXPECT_EQ(actual, expected) << what;  // "NaN"
  } else {
    ASSERT_TRUE(actual.is_number()) << what << ": " << actual;
    EXPECT_DOUBLE_EQ(actual.get<double>(), expected.get<double>()) << what;
  }
}

TEST(ScoreMeteorCliTest, GoldenRecords) {
  UNIEVAL_REQUIRE_SHARED("golden/meteor.jsonl");
  UNIEVAL_REQUIRE_SHARED("data/meteor/synonym/english.synsets.gz");
  std::map<std::string, nlohmann::json> stdio;
  auto records = read_jsonl(shared_dir() / "golden/meteor.jsonl");
  for (const auto& rec : records) stdio[rec["id"].get<std::string>()] = rec;
  int checked = 0;
  for (const auto& rec : records) {
    std::string id = rec["id"];
    if (id.size() > 6 && id.compare(id.size() - 6, 6, "-stdio") == 0) continue;
    SCOPED_TRACE(id);
    TempDir tmp;
    std::string args =
        "score --metric meteor --hyp " + shq(tmp.write("hyp.txt", join_lines(rec["hyps"])));
    for (size_t k = 0; k < rec["refs"].size(); ++k)
      args += " --ref " +
              shq(tmp.write("ref" + std::to_string(k) + ".txt", join_lines(rec["refs"][k])));
    CliResult r = run_cli(args + kGoldenArgs + shq(data_dir()));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    nlohmann::json j = nlohmann::json::parse(r.out);
    const auto& e = rec["expected"];
    expect_field(e["Final_score"], j["score"], "score");
    expect_field(e["Precision"], j["precision"], "precision");
    expect_field(e["Recall"], j["recall"], "recall");
    expect_field(e["fMean"], j["fmean"], "fmean");
    expect_field(e["Fragmentation_penalty"], j["fragmentation_penalty"], "fragmentation_penalty");
    expect_field(e["Chunks"], j["chunks"], "chunks");
    ASSERT_EQ(j["segment_scores"].size(), e["segment_scores"].size());
    for (size_t i = 0; i < e["segment_scores"].size(); ++i)
      expect_field(e["segment_scores"][i], j["segment_scores"][i], "segment " + std::to_string(i));
    std::string base = id.substr(0, id.find('/'));
    const auto& lines = stdio.at(base + "/meteor-stdio")["expected"]["stats_lines"];
    ASSERT_EQ(j["stats"].size(), lines.size());
    for (size_t i = 0; i < lines.size(); ++i) EXPECT_EQ(j["stats"][i], lines[i]) << i;
    ++checked;
  }
  EXPECT_EQ(checked, 27);
}

TEST(ScoreMeteorCliTest, TextOutputAndEnvironmentDataDir) {
  UNIEVAL_REQUIRE_SHARED("data/meteor/function/english.words");
  TempDir tmp;
  std::string hyp = tmp.write("h.txt", "the cat sat\n");
  std::string ref = tmp.write("r.txt", "the cat sat\n");
  CliResult r = run_cli("score --metric meteor --hyp " + shq(hyp) + " --ref " + shq(ref) +
                        " --modules exact --stats --meteor-data " + shq(data_dir()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Segment 1 score:\t1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Final score:            1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("3.0 3.0 1.0 1.0 2.0 2.0 1.0 1.0"), std::string::npos) << r.out;
  CliResult env = run_cli("score --metric meteor --hyp " + shq(hyp) + " --ref " + shq(ref) +
                          " --modules exact --json");
  // Without --meteor-data the environment variable is used.
  std::string cmd = "env UNIEVAL_METEOR_DATA=" + shq(data_dir()) + " '" + UNIEVAL_BINARY +
                    "' score --metric meteor --hyp " + shq(hyp) + " --ref " + shq(ref) +
                    " --modules exact --json";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  EXPECT_EQ(pclose(p), 0);
  EXPECT_EQ(nlohmann::json::parse(out)["score"], 1.0);
  if (!std::getenv("UNIEVAL_METEOR_DATA")) {
    EXPECT_EQ(env.exit_code, 2);
    EXPECT_NE(env.err.find("--meteor-data"), std::string::npos) << env.err;
  }
}

TEST(ScoreMeteorCliTest, ErrorsExitTwoAndNameTheProblem) {
  UNIEVAL_REQUIRE_SHARED("data/meteor/function/english.words");
  TempDir tmp;
  std::string hyp = tmp.write("h.txt", "a b\n");
  std::string ref = tmp.write("r.txt", "a b\n");
  std::string base = "score --metric meteor --hyp " + shq(hyp) + " --ref " + shq(ref);
  // The default module list includes paraphrase, whose table is not in the shared data.
  CliResult para = run_cli(base + " --meteor-data " + shq(data_dir()));
  EXPECT_EQ(para.exit_code, 2);
  EXPECT_NE(para.err.find("paraphrase-en.gz"), std::string::npos) << para.err;
  // A data directory without synonyms.
  std::string empty = tmp.write("data/function/english.words", "the\n");
  CliResult syn = run_cli(base + " --modules exact,synonym --meteor-data " +
                          shq((tmp.path() / "data").string()));
  EXPECT_EQ(syn.exit_code, 2);
  EXPECT_NE(syn.err.find("synonym/english.synsets"), std::string::npos) << syn.err;
  CliResult mod = run_cli(base + " --modules exact,wordnet --meteor-data " + shq(data_dir()));
  EXPECT_EQ(mod.exit_code, 2);
  EXPECT_NE(mod.err.find("wordnet"), std::string::npos) << mod.err;
  CliResult params =
      run_cli(base + " --modules exact --params '0.5 1' --meteor-data " + shq(data_dir()));
  EXPECT_EQ(params.exit_code, 2);
  CliResult lines = run_cli("score --metric meteor --hyp " + shq(hyp) + " --ref " +
                            shq(tmp.write("r2.txt", "a\nb\n")) + " --modules exact --meteor-data " +
                            shq(data_dir()));
  EXPECT_EQ(lines.exit_code, 2);
}

TEST(ScoreMeteorCliTest, TaskParamsAndHelp) {
  UNIEVAL_REQUIRE_SHARED("data/meteor/function/english.words");
  TempDir tmp;
  std::string hyp = tmp.write("h.txt", "the big cat sat on a mat\n");
  std::string ref = tmp.write("r.txt", "the cat sat on the mat\n");
  std::string base = "score --metric meteor --modules exact --json --hyp " + shq(hyp) + " --ref " +
                     shq(ref) + " --meteor-data " + shq(data_dir());
  CliResult rank = run_cli(base);
  CliResult hter = run_cli(base + " --task hter");
  CliResult custom = run_cli(base + " --params '0.85 0.2 0.6 0.75'");
  ASSERT_EQ(rank.exit_code, 0) << rank.err;
  ASSERT_EQ(hter.exit_code, 0) << hter.err;
  ASSERT_EQ(custom.exit_code, 0) << custom.err;
  auto jr = nlohmann::json::parse(rank.out), jh = nlohmann::json::parse(hter.out),
       jc = nlohmann::json::parse(custom.out);
  EXPECT_NE(jr["score"], jh["score"]);
  EXPECT_DOUBLE_EQ(jr["score"].get<double>(), jc["score"].get<double>());  // same α β γ δ
  EXPECT_NE(jr["signature"].get<std::string>().find("task:rank"), std::string::npos);
  CliResult help = run_cli("score --metric meteor --help");
  EXPECT_EQ(help.exit_code, 0);
  for (const char* opt : {"--modules", "--weights", "--task", "--params", "--norm", "--lower",
                          "--no-punct", "--stats", "--meteor-data", "--paraphrase", "--beam"})
    EXPECT_NE(help.out.find(opt), std::string::npos) << opt;
}

}  // namespace
}  // namespace unieval::testing
