// `unieval score --metric rouge | rouge-l-coco` end to end: Perl flags as written, JSON fields,
// golden corpus values through the CLI, and bad input -> exit 2.
#include <gtest/gtest.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "tests/test_util.h"

namespace unieval::testing {
namespace {

using nlohmann::json;

std::string fmt5(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%7.5f", x);
  return buf;
}

std::string data_flag() {
  return " --rouge-data " + shq((shared_dir() / "data/rouge155").string());
}

// Writes a golden rouge155_corpus line as <q>-separated line files; returns "--hyp H --ref R".
std::string write_golden_corpus(const TempDir& tmp, const json& g) {
  std::string hyp, ref;
  for (const auto& p : g["inputs"]["pairs"]) {
    std::string h, r;
    for (const auto& s : p["peer_sentences"])
      h += (h.empty() ? "" : " <q> ") + s.get<std::string>();
    for (const auto& s : p["model_sentences"][0])
      r += (r.empty() ? "" : " <q> ") + s.get<std::string>();
    hyp += h + "\n";
    ref += r + "\n";
  }
  return "--hyp " + shq(tmp.write("hyp.txt", hyp)) + " --ref " + shq(tmp.write("ref.txt", ref)) +
         " --sentence-sep '<q>'";
}

TEST(ScoreRougeCliTest, PerlFlagsAsWrittenReproduceGoldenCorpora) {
  UNIEVAL_REQUIRE_SHARED("golden/rouge.jsonl");
  UNIEVAL_REQUIRE_SHARED("data/rouge155/WordNet-2.0-Exceptions/adj.exc");
  int checked = 0;
  for (const auto& g : read_jsonl(shared_dir() / "golden/rouge.jsonl")) {
    if (g["metric"] != "rouge155_corpus") continue;
    SCOPED_TRACE(g["id"].get<std::string>());
    TempDir tmp;
    std::string flags;
    for (const auto& f : g["options"]["flags"]) flags += " " + f.get<std::string>();
    CliResult r = run_cli("score --metric rouge " + write_golden_corpus(tmp, g) + flags +
                          data_flag() + " --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    json out = json::parse(r.out);
    for (const auto& [name, exp] : g["expected"]["averages"].items()) {
      ASSERT_TRUE(out.contains(name)) << name;
      for (const char* k : {"R", "P", "F"}) {
        EXPECT_EQ(fmt5(out[name][k].get<double>()), fmt5(exp[k]["avg"].get<double>())) << name << k;
        EXPECT_EQ(fmt5(out[name][std::string(k) + "_ci"][0].get<double>()),
                  fmt5(exp[k]["ci_low"].get<double>()));
        EXPECT_EQ(fmt5(out[name][std::string(k) + "_ci"][1].get<double>()),
                  fmt5(exp[k]["ci_high"].get<double>()));
      }
    }
    EXPECT_NE(out["signature"].get<std::string>().find("rouge155|n:"), std::string::npos);
    EXPECT_NE(out["signature"].get<std::string>().find("|m:1|exc:wn2.0|"), std::string::npos);
    EXPECT_FALSE(out.contains("instances"));
    ++checked;
  }
  EXPECT_EQ(checked, 2);
}

TEST(ScoreRougeCliTest, PerInstanceAndNoCiWithoutBootstrapFlags) {
  TempDir tmp;
  std::string files = "--hyp " + shq(tmp.write("h.txt", "the cat sat on the mat\na dog\n")) +
                      " --ref " + shq(tmp.write("r.txt", "the cat was on the mat\na dog barked\n"));
  CliResult r = run_cli("score --metric rouge " + files + " -n 1 -d --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json out = json::parse(r.out);
  EXPECT_FALSE(out["ROUGE-1"].contains("R_ci"));
  ASSERT_TRUE(out.contains("instances"));
  EXPECT_EQ(fmt5(out["instances"]["1.X"]["ROUGE-1"]["R"].get<double>()), "0.83333");  // 5/6
  EXPECT_EQ(fmt5(out["instances"]["2.X"]["ROUGE-L"]["P"].get<double>()), "1.00000");
  // Human output is the Perl script's report.
  CliResult h = run_cli("score --metric rouge " + files + " -n 1");
  ASSERT_EQ(h.exit_code, 0);
  EXPECT_NE(h.out.find("X ROUGE-1 Average_R: "), std::string::npos);
  EXPECT_NE(h.out.find("(95%-conf.int. "), std::string::npos);
}

TEST(ScoreRougeCliTest, SkipBigramAndWeightedFlags) {
  TempDir tmp;
  std::string files = "--hyp " + shq(tmp.write("h.txt", "a b c d e\n")) + " --ref " +
                      shq(tmp.write("r.txt", "a c b d e\n"));
  CliResult r = run_cli("score --metric rouge " + files + " -2 -1 -U -w 1.2 -x --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json out = json::parse(r.out);
  EXPECT_TRUE(out.contains("ROUGE-S*"));
  EXPECT_TRUE(out.contains("ROUGE-SU*"));
  EXPECT_TRUE(out.contains("ROUGE-W-1.2"));
  EXPECT_FALSE(out.contains("ROUGE-L"));
  // 10 skip-bigrams each side; all shared but (b,c) vs (c,b).
  EXPECT_EQ(fmt5(out["ROUGE-S*"]["R"].get<double>()), "0.90000");
  CliResult r4 = run_cli("score --metric rouge " + files + " -2 4 -u --json");
  ASSERT_EQ(r4.exit_code, 0) << r4.err;
  EXPECT_TRUE(json::parse(r4.out).contains("ROUGE-SU4"));
}

TEST(ScoreRougeCliTest, StemmingWithoutDataIsAnErrorWithTheFix) {
  TempDir tmp;
  std::string files =
      "--hyp " + shq(tmp.write("h.txt", "went\n")) + " --ref " + shq(tmp.write("r.txt", "go\n"));
  CliResult r = run_cli("score --metric rouge " + files + " -m --json");
  // run_cli inherits the environment; only meaningful when UNIEVAL_ROUGE_DATA is unset.
  if (std::getenv("UNIEVAL_ROUGE_DATA")) GTEST_SKIP() << "UNIEVAL_ROUGE_DATA is set";
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--rouge-data"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--no-wordnet-exceptions"), std::string::npos) << r.err;
  CliResult ok =
      run_cli("score --metric rouge " + files + " -m --no-wordnet-exceptions -n 1 --json");
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_NE(json::parse(ok.out)["signature"].get<std::string>().find("exc:none"),
            std::string::npos);
}

TEST(ScoreRougeCliTest, WithDataWentMatchesGo) {
  UNIEVAL_REQUIRE_SHARED("data/rouge155/WordNet-2.0-Exceptions/verb.exc");
  TempDir tmp;
  std::string files =
      "--hyp " + shq(tmp.write("h.txt", "went\n")) + " --ref " + shq(tmp.write("r.txt", "go\n"));
  CliResult r = run_cli("score --metric rouge " + files + " -m -n 1" + data_flag() + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["ROUGE-1"]["F"].get<double>(), 1.0);
}

TEST(ScoreRougeCliTest, BadInputExitsTwo) {
  TempDir tmp;
  std::string h = shq(tmp.write("h.txt", "a b\nc d\n"));
  std::string r1 = shq(tmp.write("r1.txt", "a b\n"));
  std::string r2 = shq(tmp.write("r2.txt", "a b\n...\n"));
  EXPECT_EQ(run_cli("score --metric rouge --hyp " + h + " --ref " + r1).exit_code,
            2);  // line count
  EXPECT_EQ(run_cli("score --metric rouge --hyp /nonexistent --ref " + r1).exit_code, 2);
  EXPECT_EQ(run_cli("score --metric rouge --hyp " + h + " --ref " + r2 + " -f C").exit_code, 2);
  EXPECT_EQ(run_cli("score --metric rouge --hyp " + h + " --ref " + r2 + " -c 150").exit_code, 2);
  EXPECT_EQ(run_cli("score --metric rouge --hyp " + h + " --ref " + r2 + " --mode nope").exit_code,
            2);
  EXPECT_EQ(run_cli("score --metric rouge --hyp " + h + " --ref " + r2 + " -t 1").exit_code, 2);
  // ROUGE-W with an empty reference: ROUGE-1.5.5 crashes; we name the reference file and line.
  CliResult w = run_cli("score --metric rouge --hyp " + h + " --ref " + r2 + " -w 1.2");
  EXPECT_EQ(w.exit_code, 2);
  EXPECT_NE(w.err.find("r2.txt:2"), std::string::npos) << w.err;
  // Invalid UTF-8: the one policy of every metric (ROUGE-1.5.5 itself reads bytes), for line
  // files, for SPL directories and in rouge-score mode.
  std::string bad = shq(tmp.write("bad.txt", "a b\nc \xff d\n"));
  for (const char* mode : {"", " --mode rouge-score"}) {
    CliResult u = run_cli(std::string("score --metric rouge --hyp ") + bad + " --ref " + r2 + mode);
    EXPECT_EQ(u.exit_code, 2) << mode;
    EXPECT_NE(u.err.find("bad.txt:2: invalid UTF-8 at byte 3"), std::string::npos) << u.err;
  }
  tmp.write("sys/a.txt", "ok .\n");
  tmp.write("ref/a.txt", "fine .\nnot \xc3 utf-8\n");
  CliResult spl = run_cli("score --metric rouge --hyp-dir " + shq((tmp.path() / "sys").string()) +
                          " --ref-dir " + shq((tmp.path() / "ref").string()));
  EXPECT_EQ(spl.exit_code, 2);
  EXPECT_NE(spl.err.find("a.txt:2: invalid UTF-8 at byte 5"), std::string::npos) << spl.err;
}

// -t 0 is ROUGE-1.5.5's default counting unit (per-summary scores averaged): accepted, same
// output. -t 1 / -t 2 and -3 (ROUGE-BE) are refused with a message saying what and why.
TEST(ScoreRougeCliTest, CountModeZeroIsTheDefaultOthersAndBasicElementsRefused) {
  TempDir tmp;
  std::string in = " --hyp " +
                   shq(tmp.write("h.txt", "the cat sat on the mat .\na dog barked at it .\n")) +
                   " --ref " + shq(tmp.write("r.txt", "a cat sat on a mat .\nthe dog barked .\n")) +
                   " -n 2 -c 95 -r 50 -d --json";
  CliResult plain = run_cli("score --metric rouge" + in);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  CliResult t0 = run_cli("score --metric rouge" + in + " -t 0");
  ASSERT_EQ(t0.exit_code, 0) << t0.err;
  EXPECT_EQ(t0.out, plain.out);
  for (const char* t : {"1", "2"}) {
    CliResult r = run_cli("score --metric rouge" + in + " -t " + t);
    EXPECT_EQ(r.exit_code, 2) << t;
    EXPECT_NE(r.err.find(std::string("-t ") + t), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("not supported"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
  CliResult bad = run_cli("score --metric rouge" + in + " -t 3");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("-t must be 0, 1 or 2"), std::string::npos) << bad.err;
  CliResult be = run_cli("score --metric rouge" + in + " -3 HM");
  EXPECT_EQ(be.exit_code, 2);
  EXPECT_NE(be.err.find("Basic Elements"), std::string::npos) << be.err;
  EXPECT_TRUE(be.out.empty()) << be.out;
  CliResult rs = run_cli("score --metric rouge --mode rouge-score" + std::string(" --hyp ") +
                         shq((tmp.path() / "h.txt").string()) + " --ref " +
                         shq((tmp.path() / "r.txt").string()) + " -t 0");
  EXPECT_EQ(rs.exit_code, 2);
  CliResult help = run_cli("score --metric rouge --help");
  ASSERT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("--count-mode"), std::string::npos);
  EXPECT_NE(help.out.find("--basic-elements"), std::string::npos);
}

TEST(ScoreRougeCliTest, SplDirectories) {
  TempDir tmp;
  tmp.write("sys/a.txt", "the cat sat .\non the mat .\n");
  tmp.write("sys/b.txt", "a dog .\n");
  tmp.write("ref/a.txt", "the cat sat on the mat .\n");
  tmp.write("ref/b.txt", "the dog .\n");
  CliResult r = run_cli("score --metric rouge --hyp-dir " + shq((tmp.path() / "sys").string()) +
                        " --ref-dir " + shq((tmp.path() / "ref").string()) + " -n 1 -d --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json out = json::parse(r.out);
  EXPECT_EQ(fmt5(out["instances"]["1.X"]["ROUGE-1"]["R"].get<double>()), "1.00000");
  EXPECT_EQ(fmt5(out["instances"]["2.X"]["ROUGE-1"]["R"].get<double>()), "0.50000");
}

TEST(ScoreRougeCliTest, RougeScoreModeAndCoco) {
  TempDir tmp;
  std::string files = "--hyp " + shq(tmp.write("h.txt", "On the mat <q> the cat sat\n")) +
                      " --ref " + shq(tmp.write("r.txt", "the cat sat on the mat\n"));
  CliResult r = run_cli("score --metric rouge --mode rouge-score --stem --sentence-sep '<q>' " +
                        files + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json out = json::parse(r.out);
  for (const char* k : {"rouge1", "rouge2", "rougeL", "rougeLsum"}) {
    ASSERT_TRUE(out.contains(k)) << k;
    EXPECT_TRUE(out[k].contains("precision") && out[k].contains("recall") &&
                out[k].contains("fmeasure"));
  }
  // rougeLsum unions the LCS over the hypothesis sentences; rougeL is one LCS over all tokens.
  EXPECT_DOUBLE_EQ(out["rougeLsum"]["fmeasure"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(out["rougeL"]["fmeasure"].get<double>(), 0.5);
  CliResult c = run_cli("score --metric rouge-l-coco " + files + " --json");
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_TRUE(json::parse(c.out).contains("ROUGE_L"));
}

}  // namespace
}  // namespace unieval::testing
