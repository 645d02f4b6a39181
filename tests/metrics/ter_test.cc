// TER against sacreBLEU 2.6.0 on every case of tests/metrics/ter/golden_ter.jsonl (written by
// tests/metrics/ter/make_golden.py running sacreBLEU itself), plus cases small enough to check by
// hand.
#include "metrics/ter.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "tests/test_util.h"

namespace unieval::metrics {
namespace {

std::string two_decimals(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

TerOptions options_of(const nlohmann::json& j) {
  TerOptions o;
  o.normalized = j.at("normalized").get<bool>();
  o.no_punct = j.at("no_punct").get<bool>();
  o.asian_support = j.at("asian_support").get<bool>();
  o.case_sensitive = j.at("case_sensitive").get<bool>();
  return o;
}

TEST(TerGoldenTest, EveryCaseMatchesSacrebleu) {
  const auto path =
      std::filesystem::path(UNIEVAL_SOURCE_DIR) / "tests/metrics/ter/golden_ter.jsonl";
  const auto cases = testing::read_jsonl(path);
  ASSERT_GE(cases.size(), 300u) << path;
  size_t segments = 0;
  for (const auto& c : cases) {
    const TerOptions o = options_of(c.at("options"));
    const std::string label = c.at("name").get<std::string>() + " " + o.signature(0);
    const auto hyps = c.at("hyps").get<std::vector<std::string>>();
    const auto refs = c.at("refs").get<std::vector<std::vector<std::string>>>();
    TerScore s = corpus_ter(hyps, refs, o);
    EXPECT_EQ(s.num_edits, c.at("num_edits").get<double>()) << label;
    EXPECT_EQ(s.ref_length, c.at("ref_length").get<double>()) << label;
    EXPECT_EQ(s.score, c.at("score").get<double>()) << label;  // same operations: the same double
    EXPECT_EQ(two_decimals(s.score), c.at("score_str").get<std::string>()) << label;
    EXPECT_EQ(s.signature, c.at("signature").get<std::string>()) << label;
    const auto sent = sentence_ter(hyps, refs, o);
    const auto& want = c.at("segments");
    ASSERT_EQ(sent.size(), want.size()) << label;
    for (size_t i = 0; i < sent.size(); ++i) {
      EXPECT_EQ(sent[i].num_edits, want[i].at("num_edits").get<double>())
          << label << " segment " << i;
      EXPECT_EQ(sent[i].ref_length, want[i].at("ref_length").get<double>())
          << label << " segment " << i;
      EXPECT_EQ(two_decimals(sent[i].score), want[i].at("score_str").get<std::string>())
          << label << " segment " << i;
      EXPECT_EQ(sent[i].score, want[i].at("score").get<double>()) << label << " segment " << i;
      ++segments;
    }
  }
  EXPECT_GT(segments, 3000u);
}

TEST(TerTest, OneShiftMovesABlock) {
  // "c d" moved before "a b": one shift, then an exact match.
  TerScore s = corpus_ter({"a b c d e"}, {{"c d a b e"}}, {});
  EXPECT_EQ(s.num_edits, 1);
  EXPECT_EQ(s.ref_length, 5);
  EXPECT_DOUBLE_EQ(s.score, 20.0);
  EXPECT_EQ(s.signature, "nrefs:1|case:lc|tok:tercom|norm:no|punct:yes|asian:no|version:2.6.0");
}

TEST(TerTest, InsertionDeletionSubstitution) {
  const std::vector<std::vector<std::string>> ref{{"the cat sat on the mat"}};
  EXPECT_EQ(corpus_ter({"the cat sat on mat"}, ref, {}).num_edits, 1);          // "the" inserted
  EXPECT_EQ(corpus_ter({"the the cat sat on the mat"}, ref, {}).num_edits, 1);  // "the" deleted
  EXPECT_EQ(corpus_ter({"a dog sat on the mat"}, ref, {}).num_edits, 2);        // two substitutions
  EXPECT_EQ(corpus_ter({"The CAT sat on the mat"}, ref, {}).num_edits, 0);      // lowercased
  TerOptions cs;
  cs.case_sensitive = true;
  EXPECT_EQ(corpus_ter({"The CAT sat on the mat"}, ref, cs).num_edits, 2);
}

TEST(TerTest, BestReferenceAndAverageLength) {
  // Ref 1 needs 3 edits, ref 2 none: 0 edits over the average length (4 + 2) / 2.
  TerScore s = corpus_ter({"x y"}, {{"a b c d"}, {"x y"}}, {});
  EXPECT_EQ(s.num_edits, 0);
  EXPECT_EQ(s.ref_length, 3);
  EXPECT_EQ(s.signature.substr(0, 8), "nrefs:2|");
}

TEST(TerTest, EmptyReferences) {
  EXPECT_EQ(corpus_ter({"a b c"}, {{""}}, {}).score, 100.0);  // edits, no reference words
  EXPECT_EQ(corpus_ter({""}, {{""}}, {}).score, 0.0);
  TerScore s = corpus_ter({""}, {{"a b c"}}, {});
  EXPECT_EQ(s.num_edits, 3);
  EXPECT_EQ(s.score, 100.0);
}

TEST(TerTest, TercomTokenisation) {
  TerOptions n;
  n.normalized = true;
  using V = std::vector<std::string>;
  EXPECT_EQ(ter_tokenize("It's 3.5, John's (x).  ", n),
            (V{"it", "'s", "3.5", ",", "john", "'s", "(", "x", ")", "."}));
  EXPECT_EQ(ter_tokenize("&quot;a&quot; &amp; 3-4", n), (V{"\"", "a", "\"", "&", "3", "-", "4"}));
  TerOptions p;
  p.no_punct = true;
  EXPECT_EQ(ter_tokenize("a.b, (c)!", p), (V{"ab", "c"}));
  TerOptions a = n;
  a.asian_support = true;
  EXPECT_EQ(ter_tokenize("北京。ok", a), (V{"北", "京", "。", "ok"}));
}

TEST(TerTest, ThreadCountChangesNoStatistic) {
  auto c = testing::random_text_corpus(1500, 7);
  TerOptions one, many;
  one.threads = 1;
  many.threads = 4;
  EXPECT_EQ(ter_segment_stats(c.hyps, c.refs, one), ter_segment_stats(c.hyps, c.refs, many));
}

}  // namespace
}  // namespace unieval::metrics
