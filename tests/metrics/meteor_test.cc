// METEOR 1.5: golden vectors (../shared/golden/meteor.jsonl, produced with the jar), aligner
// behaviour, statistics, options and the paraphrase module on tiny tables.
#include "metrics/meteor.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "tests/test_util.h"

namespace unieval::metrics {
namespace {

using ::unieval::testing::read_jsonl;
using ::unieval::testing::shared_dir;
using ::unieval::testing::TempDir;

std::string data_dir() { return (shared_dir() / "data/meteor").string(); }

MeteorOptions golden_options() {
  MeteorOptions o;
  o.modules = {MeteorModule::kExact, MeteorModule::kStem, MeteorModule::kSynonym};
  o.weights = {1.0, 0.6, 0.8};
  o.normalize = MeteorNormalize::kNorm;
  o.data_dir = data_dir();
  o.threads = 2;
  return o;
}

void expect_value(const nlohmann::json& expected, double actual, const std::string& what) {
  if (expected.is_string()) {
    ASSERT_EQ(expected.get<std::string>(), "NaN") << what;
    EXPECT_TRUE(std::isnan(actual)) << what << " = " << actual;
  } else {
    EXPECT_DOUBLE_EQ(expected.get<double>(), actual) << what;
  }
}

// Every golden record: file mode (system statistics, Final score, segment scores) and -stdio
// (per-segment 23-number statistics lines and scores).
TEST(MeteorGoldenTest, AllRecordsMatchTheJar) {
  UNIEVAL_REQUIRE_SHARED("golden/meteor.jsonl");
  UNIEVAL_REQUIRE_SHARED("data/meteor/synonym/english.synsets.gz");
  MeteorScorer scorer(golden_options());
  int checked = 0;
  for (const auto& rec : read_jsonl(shared_dir() / "golden/meteor.jsonl")) {
    ASSERT_EQ(rec["metric"], "meteor");
    std::string id = rec["id"];
    SCOPED_TRACE(id);
    auto hyps = rec["hyps"].get<std::vector<std::string>>();
    auto refs = rec["refs"].get<std::vector<std::vector<std::string>>>();
    MeteorResult r = scorer.score(hyps, refs);
    const auto& e = rec["expected"];
    ASSERT_EQ(e["segment_scores"].size(), r.segment_scores.size());
    for (size_t i = 0; i < r.segment_scores.size(); ++i)
      expect_value(e["segment_scores"][i], r.segment_scores[i], "segment " + std::to_string(i));
    if (e.contains("stats_lines")) {
      ASSERT_EQ(e["stats_lines"].size(), r.segments.size());
      for (size_t i = 0; i < r.segments.size(); ++i)
        EXPECT_EQ(e["stats_lines"][i].get<std::string>(), r.segments[i].to_string())
            << "segment " << i;
    } else {
      const MeteorStats& t = r.total;
      expect_value(e["Test_words"], t.test_length, "Test words");
      expect_value(e["Reference_words"], t.reference_length, "Reference words");
      expect_value(e["Chunks"], t.chunks, "Chunks");
      expect_value(e["Precision"], t.precision, "Precision");
      expect_value(e["Recall"], t.recall, "Recall");
      expect_value(e["f1"], t.f1, "f1");
      expect_value(e["fMean"], t.fmean, "fMean");
      expect_value(e["Fragmentation_penalty"], t.fragmentation_penalty, "Fragmentation penalty");
      expect_value(e["Final_score"], r.score, "Final score");
    }
    ++checked;
  }
  EXPECT_EQ(checked, 54);
}

// A resources directory with only the function-word list: enough for exact/stem without -norm.
class MeteorSmallTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.write("function/english.words", "the\na\n,\n.\nof\n");
    dir_.write("nonbreaking/english.prefixes", "Mr\nNo #NUMERIC_ONLY#\n");
  }
  MeteorOptions options(std::vector<MeteorModule> modules) const {
    MeteorOptions o;
    o.modules = std::move(modules);
    o.data_dir = dir_.path().string();
    o.threads = 1;
    return o;
  }
  TempDir dir_;
};

TEST_F(MeteorSmallTest, PrefersFewerChunks) {
  // "the" can align to hypothesis word 0 or 2; only word 2 keeps "the dog" one chunk.
  MeteorScorer s(options({MeteorModule::kExact}));
  MeteorStats st = s.segment("the cat the dog", {"the dog"});
  EXPECT_EQ(st.to_string(),
            "4.0 2.0 2.0 1.0 1.0 1.0 1.0 1.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 1.0 "
            "2.0 2.0");
}

TEST_F(MeteorSmallTest, NonExactMatchesCountZeroInTheSearch) {
  // The aligner scores partial alignments with int fields: a one-word stem match adds
  // (int)(0.5) = 0, so taking "runs"~"run" (2 more chunks) loses to leaving it unmatched.
  MeteorScorer s(options({MeteorModule::kExact, MeteorModule::kStem}));
  MeteorStats st = s.segment("cat dog run run", {"cat runs dog"});
  EXPECT_EQ(st.to_string(),
            "4.0 3.0 0.0 0.0 2.0 2.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 0.0 2.0 "
            "2.0 2.0");
  // Unambiguous (one-to-one) stem matches are fixed before the search and always kept.
  MeteorStats fixed = s.segment("cat dog run", {"cat runs dog"});
  EXPECT_EQ(fixed.test_content[1], 1.0);
  EXPECT_EQ(fixed.reference_content[1], 1.0);
}

TEST_F(MeteorSmallTest, IdenticalLinesUseExactOnly) {
  MeteorScorer s(options({MeteorModule::kExact, MeteorModule::kStem}));
  MeteorStats st = s.segment("dogs run", {"dogs run"});
  EXPECT_EQ(st.score, 1.0);
  EXPECT_EQ(st.chunks, 1.0);
  EXPECT_EQ(st.test_content[0], 2.0);
  EXPECT_EQ(st.test_content[1], 0.0);
}

TEST_F(MeteorSmallTest, BestReferenceAndSummedStatistics) {
  MeteorScorer s(options({MeteorModule::kExact}));
  MeteorResult r = s.score({"a b c", "x y"}, {{"a b c", "q"}, {"c b a", "x y"}});
  ASSERT_EQ(r.segment_scores.size(), 2u);
  EXPECT_EQ(r.segment_scores[0], 1.0);  // first reference (identical) wins
  EXPECT_EQ(r.segment_scores[1], 1.0);  // second reference
  // Perfect segments add no chunks to the system statistics.
  EXPECT_EQ(r.total.chunks, 0.0);
  EXPECT_EQ(r.score, 1.0);
  EXPECT_EQ(r.total.test_length, 5.0);
}

TEST_F(MeteorSmallTest, EmptySegmentsScoreZero) {
  MeteorScorer s(options({MeteorModule::kExact}));
  MeteorStats st = s.segment("", {"the dog"});
  EXPECT_EQ(st.score, 0.0);
  EXPECT_TRUE(std::isnan(st.precision));
  EXPECT_EQ(st.recall, 0.0);
}

TEST_F(MeteorSmallTest, StatsLineRoundTrip) {
  MeteorScorer s(options({MeteorModule::kExact}));
  MeteorStats st = s.segment("the big cat sat", {"the cat sat down"});
  MeteorStats back = MeteorStats::parse(st.to_string());
  s.compute(back);
  EXPECT_EQ(back.to_string(), st.to_string());
  EXPECT_DOUBLE_EQ(back.score, st.score);
  EXPECT_THROW(MeteorStats::parse("1 2 3"), InputError);
}

TEST_F(MeteorSmallTest, TaskParametersAndWeights) {
  MeteorOptions o = options({MeteorModule::kExact, MeteorModule::kStem});
  MeteorScorer rank(o);
  EXPECT_EQ(rank.params()[0], 0.85);
  EXPECT_EQ(rank.weights(), (std::vector<double>{1.0, 0.6}));  // task weights by position
  o.task = "hter";
  MeteorScorer hter(o);
  EXPECT_EQ(hter.params()[1], 1.50);
  EXPECT_EQ(hter.weights(), (std::vector<double>{1.0, 0.2}));
  // -p makes the task "custom", which the jar resolves to the adq weights.
  o.params = {0.5, 1.0, 0.5, 0.5};
  MeteorScorer custom(o);
  EXPECT_EQ(custom.params()[3], 0.5);
  EXPECT_EQ(custom.weights(), (std::vector<double>{1.0, 1.0}));
  o.weights = {1.0};  // fewer weights than modules: padded with 0
  MeteorScorer padded(o);
  EXPECT_EQ(padded.weights(), (std::vector<double>{1.0, 0.0}));
  o.task = "nope";
  o.params.clear();
  EXPECT_THROW(MeteorScorer bad(o), InputError);
}

TEST_F(MeteorSmallTest, NormalisationModes) {
  MeteorOptions o = options({MeteorModule::kExact});
  o.normalize = MeteorNormalize::kLower;
  EXPECT_EQ(MeteorScorer(o).normalize("The CAT, sat."), "the cat, sat.");
  o.normalize = MeteorNormalize::kNorm;
  EXPECT_EQ(MeteorScorer(o).normalize("The CAT, sat."), "the cat , sat .");
  o.normalize = MeteorNormalize::kNormNoPunct;
  EXPECT_EQ(MeteorScorer(o).normalize("The CAT, sat."), "the cat sat");
}

TEST_F(MeteorSmallTest, MissingResourcesNameTheFile) {
  MeteorOptions o = options({MeteorModule::kExact, MeteorModule::kSynonym});
  try {
    MeteorScorer s(o);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("synonym/english.synsets"), std::string::npos) << e.what();
  }
  o.modules = {MeteorModule::kExact, MeteorModule::kParaphrase};
  try {
    MeteorScorer s(o);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("paraphrase-en.gz"), std::string::npos) << e.what();
  }
  o.modules = {MeteorModule::kExact};
  o.data_dir = (dir_.path() / "nowhere").string();
  EXPECT_THROW(MeteorScorer s(o), InputError);
}

TEST_F(MeteorSmallTest, SynonymResourcesPlainFiles) {
  // Synsets: word line, then its synset ids; exceptions: base line, then its irregular forms.
  dir_.write("synonym/english.synsets", "quick\n100 200\nfast\n200\nrun\n300\nsprint\n300\n");
  dir_.write("synonym/english.exceptions", "run\nran\n");
  MeteorScorer s(options({MeteorModule::kExact, MeteorModule::kSynonym}));
  MeteorStats st = s.segment("fast dog", {"quick dog"});
  EXPECT_EQ(st.test_content[1], 1.0);  // fast ~ quick (synset 200)
  MeteorStats ex = s.segment("ran", {"sprint"});
  EXPECT_EQ(ex.test_content[1], 1.0);  // ran -> run (exception) ~ sprint
  MeteorStats morph = s.segment("sprints", {"run"});
  EXPECT_EQ(morph.test_content[1], 1.0);  // sprints -> sprint (WordNet morph) ~ run
}

TEST(MeteorParaphraseTest, TableReaderAndPaths) {
  MeteorParaphraseTable t = MeteorParaphraseTable::parse(
      "0.5\nkick the bucket\ndie\n0.2\nkick\nboot\n0.1\nkick the bucket\npass away\n", "tiny");
  EXPECT_EQ(t.size(), 3u);
  std::vector<int> words = {t.translate("kick"), t.translate("the"), t.translate("bucket"),
                            t.translate("unknownword")};
  EXPECT_EQ(words[3], -1);
  auto paths = t.paths(words, 0);
  ASSERT_EQ(paths.size(), 3u);  // shortest first, file order within a length
  EXPECT_EQ(paths[0], (std::pair<int, int>{1, 1}));
  EXPECT_EQ(paths[1], (std::pair<int, int>{3, 0}));
  EXPECT_EQ(paths[2], (std::pair<int, int>{3, 2}));
  EXPECT_EQ(t.paraphrase(2).size(), 2u);
  EXPECT_TRUE(t.paths(words, 1).empty());
  EXPECT_THROW(MeteorParaphraseTable::parse("0.5\nonly two lines\n", "bad"), InputError);
}

TEST_F(MeteorSmallTest, ParaphraseModuleMatchesPhrases) {
  std::string table = dir_.write("para.txt", "0.5\nkick the bucket\ndie\n0.4\npassed away\ndied\n");
  MeteorOptions o = options({MeteorModule::kExact, MeteorModule::kParaphrase});
  o.paraphrase_file = table;
  o.weights = {1.0, 0.6};
  MeteorScorer s(o);
  // Reference phrase "kick the bucket" is a paraphrase of hypothesis word "die".
  MeteorStats st = s.segment("he will die", {"he will kick the bucket"});
  EXPECT_EQ(st.test_content[0], 2.0);        // he, will (exact)
  EXPECT_EQ(st.test_content[1], 1.0);        // die
  EXPECT_EQ(st.reference_content[1], 2.0);   // kick, bucket
  EXPECT_EQ(st.reference_function[1], 1.0);  // the
  EXPECT_EQ(st.chunks, 1.0);
  // The other direction: hypothesis phrase "passed away" ~ reference "died".
  MeteorStats rev = s.segment("she passed away", {"she died"});
  EXPECT_EQ(rev.test_content[1], 2.0);
  EXPECT_EQ(rev.reference_content[1], 1.0);
}

TEST(MeteorOptionsTest, ModuleNamesAndSignature) {
  EXPECT_EQ(parse_meteor_module("Synonym"), MeteorModule::kSynonym);
  EXPECT_THROW(parse_meteor_module("wordnet"), InputError);
  MeteorOptions o;
  o.modules = {MeteorModule::kExact, MeteorModule::kStem, MeteorModule::kSynonym};
  o.weights = {1.0, 0.6, 0.8};
  o.normalize = MeteorNormalize::kNorm;
  EXPECT_EQ(o.signature(),
            "meteor-1.5|en|tok:norm|task:rank|p:0.85,0.2,0.6,0.75|m:exact,stem,synonym|w:1,0.6,0.8|"
            "beam:40");
}

}  // namespace
}  // namespace unieval::metrics
