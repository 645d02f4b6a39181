// `unieval score --metric ter`, run as a user would: files written here, the binary run, the
// numbers checked against sacreBLEU 2.6.0 (values from its TER on the same lines, as
// tests/metrics/ter/make_golden.py runs it) and bad input refused with exit 2.
#include <gtest/gtest.h>

#include <sstream>

#include "tests/test_util.h"

namespace unieval::testing {
namespace {

using nlohmann::json;

class ScoreTerCli : public ::testing::Test {
 protected:
  void SetUp() override {
    hyp_ = dir_.write("hyp.txt", "a b c d e\nThe cat sat on mat.\n\n");
    ref0_ = dir_.write("ref0.txt", "c d a b e\nthe cat sat on the mat .\nx y\n");
    ref1_ = dir_.write("ref1.txt", "a b c d e f\nA cat sat on the mat.\nx\n");
  }
  std::string files(bool two = false) const {
    return " --hyp " + shq(hyp_) + " --ref " + shq(ref0_) + (two ? " --ref " + shq(ref1_) : "");
  }
  TempDir dir_;
  std::string hyp_, ref0_, ref1_;
};

TEST_F(ScoreTerCli, CorpusJsonAndHumanLine) {
  // sacreBLEU: segment edits 1 (a shift), 3 ("mat." against "the mat ."), 2 (empty hypothesis)
  // over 5 + 7 + 2 reference words; its CLI prints TER = 42.86 at the default width.
  CliResult r = run_cli("score --metric ter" + files() + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["num_edits"], 6);
  EXPECT_EQ(j["ref_length"].get<double>(), 14.0);
  EXPECT_DOUBLE_EQ(j["score"].get<double>(), 42.857142857142854);
  EXPECT_EQ(j["signature"], "nrefs:1|case:lc|tok:tercom|norm:no|punct:yes|asian:no|version:2.6.0");
  r = run_cli("score --metric ter" + files());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "TER|nrefs:1|case:lc|tok:tercom|norm:no|punct:yes|asian:no|version:2.6.0 = 42.86\n");
}

TEST_F(ScoreTerCli, OptionsAndTwoReferences) {
  CliResult r =
      run_cli("score --metric ter --normalized --no-punct --asian-support --case-sensitive" +
              files(true) + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["signature"],
            "nrefs:2|case:mixed|tok:tercom|norm:yes|punct:no|asian:yes|version:2.6.0");
  // sacreBLEU: 4 edits (1 + 2 + 1 with the best references) over the average lengths
  // (5 + 6) / 2 + (6 + 6) / 2 + (2 + 1) / 2 = 13, TER 30.769...; its CLI prints 30.8 here.
  EXPECT_EQ(j["num_edits"], 4);
  EXPECT_DOUBLE_EQ(j["score"].get<double>(), 30.76923076923077);
  EXPECT_EQ(j["ref_length"].get<double>(), 5.5 + 6 + 1.5);
}

TEST_F(ScoreTerCli, SentenceLevelAndBootstrap) {
  CliResult r = run_cli("score --metric ter --sentence-level" + files() + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream in(r.out);
  std::string line;
  std::vector<double> edits;
  while (std::getline(in, line)) edits.push_back(json::parse(line)["num_edits"].get<double>());
  EXPECT_EQ(edits, (std::vector<double>{1, 3, 2}));
  r = run_cli("score --metric ter --bootstrap 50 --seed 3" + files() + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(json::parse(r.out).contains("bootstrap")) << r.out;
}

TEST_F(ScoreTerCli, BadInputNamesFileAndLine) {
  std::string bad = dir_.write("bad.txt", "a b\nc \xff d\ne\n");
  CliResult r = run_cli("score --metric ter --hyp " + shq(bad) + " --ref " + shq(ref0_));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("bad.txt:2"), std::string::npos) << r.err;
  std::string short_ref = dir_.write("short.txt", "a\n");
  r = run_cli("score --metric ter --hyp " + shq(hyp_) + " --ref " + shq(short_ref));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("short.txt"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace unieval::testing
