// `unieval score` for the BLEU family, run as a user would: files written here, the binary run,
// JSON fields and exit codes checked.
#include <gtest/gtest.h>

#include <sstream>

#include "tests/test_util.h"

namespace unieval::testing {
namespace {

using nlohmann::json;

class ScoreBleuCli : public ::testing::Test {
 protected:
  void SetUp() override {
    hyp_ = dir_.write(
        "hyp.txt", "The dog bit the man.\nIt wasn't surprising.\nThe man had just bitten him.\n");
    ref0_ = dir_.write("ref0.txt",
                       "The dog bit the man.\nIt was not unexpected.\nThe man bit him first.\n");
    ref1_ = dir_.write(
        "ref1.txt",
        "The dog had bit the man.\nNo one was surprised.\nThe man had bitten the dog.\n");
  }
  std::string files() const {
    return " --hyp " + shq(hyp_) + " --ref " + shq(ref0_) + " --ref " + shq(ref1_);
  }
  json run_json(const std::string& metric_and_opts) {
    CliResult r = run_cli("score --metric " + metric_and_opts + files() + " --json");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json::parse(r.out);
  }
  TempDir dir_;
  std::string hyp_, ref0_, ref1_;
};

TEST_F(ScoreBleuCli, BleuJsonFields) {
  json j = run_json("bleu");
  for (const char* k :
       {"score", "counts", "totals", "precisions", "bp", "sys_len", "ref_len", "signature"})
    EXPECT_TRUE(j.contains(k)) << k;
  EXPECT_NEAR(j["score"].get<double>(), 48.530827, 1e-6);  // sacreBLEU README example
  EXPECT_EQ(j["signature"], "nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0");
  EXPECT_EQ(j["counts"].size(), 4u);
}

TEST_F(ScoreBleuCli, BleuOptions) {
  EXPECT_NEAR(run_json("bleu --tokenize none")["score"].get<double>(), 49.1919566, 1e-6);
  EXPECT_NEAR(run_json("bleu --tokenize intl")["score"].get<double>(), 43.91623493, 1e-6);
  json j = run_json("bleu --smooth floor --smooth-value 0.2 --lowercase --max-order 2");
  EXPECT_EQ(j["signature"], "nrefs:2|case:lc|eff:no|tok:13a|smooth:floor[0.20]|version:2.6.0");
  EXPECT_EQ(j["counts"].size(), 2u);
}

TEST_F(ScoreBleuCli, SentenceLevelPrintsOneObjectPerLine) {
  CliResult r = run_cli("score --metric bleu --sentence-level" + files() + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream in(r.out);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    json j = json::parse(line);
    EXPECT_TRUE(j.contains("score"));
    ++n;
  }
  EXPECT_EQ(n, 3);
}

TEST_F(ScoreBleuCli, HumanSummaryLikeSacrebleu) {
  CliResult r = run_cli("score --metric bleu" + files());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(
      r.out.rfind("BLEU|nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0 = 48.53 ", 0),
      0u)
      << r.out;
}

TEST_F(ScoreBleuCli, ChrfPlusPlusIsChrfWithWordOrderTwo) {
  json pp = run_json("chrf++");
  json two = run_json("chrf --word-order 2");
  json plain = run_json("chrf");
  EXPECT_EQ(pp["score"].get<double>(), two["score"].get<double>());
  EXPECT_NE(pp["score"].get<double>(), plain["score"].get<double>());
  EXPECT_NE(pp["signature"].get<std::string>().find("|nw:2|"), std::string::npos);
  EXPECT_NE(plain["signature"].get<std::string>().find("|nw:0|"), std::string::npos);
}

TEST_F(ScoreBleuCli, OtherFlavoursFields) {
  json m = run_json("bleu-multi");
  for (const char* k : {"score", "precisions", "bp", "ratio", "hyp_len", "ref_len"})
    EXPECT_TRUE(m.contains(k)) << k;
  json c = run_json("bleu-coco");
  for (const char* k : {"Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4"}) EXPECT_TRUE(c.contains(k)) << k;
  json p = run_json("bleu-plato");
  EXPECT_TRUE(p.contains("bleu_1") && p.contains("bleu_2"));
  EXPECT_TRUE(run_json("chrf").contains("score"));
  EXPECT_TRUE(run_json("bleu-nltk --weights 0.5,0.5 --smoothing 1").contains("score"));
  EXPECT_TRUE(run_json("nist-nltk --max-order 4").contains("score"));
  json n = run_json("nist");
  for (const char* k : {"nist_cum", "nist_ind", "bleu_cum", "bleu_ind"}) {
    ASSERT_TRUE(n.contains(k)) << k;
    EXPECT_EQ(n[k].size(), 9u) << k;
  }
  json n13 = run_json("nist --nist-version 13a --case-sensitive");
  EXPECT_EQ(n13["nist_cum"].size(), 9u);
}

TEST_F(ScoreBleuCli, CocoSentenceLevel) {
  CliResult r = run_cli("score --metric bleu-coco --sentence-level" + files() + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream in(r.out);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    EXPECT_TRUE(json::parse(line).contains("Bleu_4"));
    ++n;
  }
  EXPECT_EQ(n, 3);
}

TEST_F(ScoreBleuCli, BadInputsExitTwo) {
  std::string short_ref = dir_.write("short.txt", "only one line\n");
  CliResult r = run_cli("score --metric bleu --hyp " + shq(hyp_) + " --ref " + shq(short_ref));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  std::string bad = dir_.write("bad.txt", "ok\n\xff\xfe broken\nok\n");
  r = run_cli("score --metric bleu --hyp " + shq(bad) + " --ref " + shq(ref0_));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("bad.txt:2"), std::string::npos) << r.err;
  r = run_cli("score --metric nist --hyp " + shq((dir_.path() / "missing.txt").string()) +
              " --ref " + shq(ref0_));
  EXPECT_EQ(r.exit_code, 2);
  r = run_cli("score --metric bleu --tokenize nope" + files());
  EXPECT_EQ(r.exit_code, 2);
  // NLTK method 6 raises on BLEU-1/2 (it needs p_3): a clear error, not a made-up number.
  r = run_cli("score --metric bleu-nltk --smoothing 6 --max-order 2" + files());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("IndexError"), std::string::npos) << r.err;
}

TEST_F(ScoreBleuCli, MultiBleuEmptyHypothesisWarns) {
  std::string empty = dir_.write("empty.txt", "\n\n\n");
  CliResult r =
      run_cli("score --metric bleu-multi --hyp " + shq(empty) + " --ref " + shq(ref0_) + " --json");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.err.find("warning"), std::string::npos) << r.err;
  EXPECT_EQ(json::parse(r.out)["score"].get<double>(), 0.0);
}

TEST_F(ScoreBleuCli, HelpDocumentsOptions) {
  CliResult r = run_cli("score --help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* opt : {"--tokenize", "--smooth-value", "--effective-order",
                          "--ref-missing-marker", "--weights", "--smoothing", "--nist-version",
                          "--case-sensitive", "--international-tokenization", "--sentence-level"})
    EXPECT_NE(r.out.find(opt), std::string::npos) << opt;
}

}  // namespace
}  // namespace unieval::testing
