// chrF++ (word n-grams) on cases small enough to derive by hand; chrF itself is checked against
// sacreBLEU on every golden case in bleu_golden_test.cc.
#include "metrics/chrf.h"

#include <gtest/gtest.h>

#include <cmath>

#include "tests/test_util.h"

namespace unieval::metrics {
namespace {

TEST(ChrfPlusPlus, WordNgramsJoinTheAveragesAndPunctuationSplitsOff) {
  ChrfOptions o;
  o.char_order = 1;
  o.word_order = 2;
  // chars: hyp c,a,t,',',s,a,t (7) vs ref c,a,t,s,a,t (6): 6 matches -> P 6/7, R 1.
  // words: hyp "cat," -> "cat" ","; so [cat , sat] vs [cat sat]: unigrams P 2/3 R 1;
  // bigrams (cat ,) (, sat) vs (cat sat): 0 matches, both sides present -> P 0 R 0.
  // avgP = (6/7 + 2/3 + 0)/3 = 32/63, avgR = 2/3; F2 = 5PR/(4P+R) = 32/51.
  ChrfScore s = corpus_chrf({"cat, sat"}, {{"cat sat"}}, o);
  EXPECT_NEAR(s.score, 100.0 * 32.0 / 51.0, 1e-12);
  EXPECT_EQ(s.stats.size(), 9u);
  EXPECT_EQ(s.stats[3], 3);  // hypothesis words
  EXPECT_EQ(s.stats[4], 2);  // reference words
  EXPECT_EQ(s.signature, "nrefs:1|case:mixed|eff:yes|nc:1|nw:2|space:no|version:2.6.0");
}

TEST(ChrfPlusPlus, TrailingPunctuationWinsOverLeadingAndSingleCharactersStay) {
  ChrfOptions o;
  o.char_order = 1;
  o.word_order = 1;
  // hyp "(hi)" -> "(hi" ")"; ref "(hi )" -> "(" "hi" ")": the only shared word is ")".
  ChrfScore s = corpus_chrf({"(hi)"}, {{"(hi )"}}, o);
  ASSERT_EQ(s.stats.size(), 6u);
  EXPECT_EQ(s.stats[3], 2);  // hypothesis words
  EXPECT_EQ(s.stats[4], 3);  // reference words
  EXPECT_EQ(s.stats[5], 1);  // matches
}

TEST(ChrfPlusPlus, WordOrderZeroIsPlainChrf) {
  ChrfOptions plain, zero;
  zero.word_order = 0;
  auto a = corpus_chrf({"the cat sat on the mat"}, {{"a cat sat on a mat"}}, plain);
  auto b = corpus_chrf({"the cat sat on the mat"}, {{"a cat sat on a mat"}}, zero);
  EXPECT_EQ(a.score, b.score);
  EXPECT_EQ(a.stats.size(), 18u);
}

// CHRF(whitespace=True): character n-grams over the whole line, spaces included. The two cases and
// their scores are sacreBLEU 2.6.0's own (Apache-2.0, credited in THIRD_PARTY_NOTICES.md;
// test/test_chrf.py test_cases_keep_whitespace: char order 6, word order 0, beta 3; its scores
// printed to 7 decimals, compared here to that precision).
TEST(ChrfTest, WhitespaceKeptAsSacrebleuKeepsIt) {
  ChrfOptions o;
  o.beta = 3;
  o.whitespace = true;
  auto a = corpus_chrf(
      {"Die Beziehung zwischen Obama und Netanjahu ist nicht gerade freundlich."},
      {{"Das Verhältnis zwischen Obama und Netanyahu ist nicht gerade freundschaftlich."}}, o);
  EXPECT_NEAR(a.score, 67.3481606, 1e-6);
  auto b = corpus_chrf(
      {"risk assessment must be made of those who are qualified and expertise in the sector - "
       "these are the scientists ."},
      {{"risk assessment has to be undertaken by those who are qualified and expert in that area - "
        "that is the scientists ."}},
      o);
  EXPECT_NEAR(b.score, 65.2414427, 1e-6);
  EXPECT_EQ(a.signature, "nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:yes|beta:3|version:2.6.0");
  o.whitespace = false;  // the default removes it: another score
  EXPECT_EQ(corpus_chrf({"a b"}, {{"ab"}}, o).score, 100.0);
  o.whitespace = true;
  EXPECT_LT(corpus_chrf({"a b"}, {{"ab"}}, o).score, 100.0);
}

// Segments are matched on several threads, each with its own clippers and vocabulary: every
// segment's statistics and the corpus score must be the same for any thread count (seeded
// corpus of 3,000 segments; chrF, chrF++, lower-cased, eps smoothing).
TEST(ChrfTest, ThreadCountChangesNoStatistic) {
  auto c = testing::random_text_corpus(3000, 23);
  for (int word_order : {0, 2}) {
    for (bool lower : {false, true}) {
      ChrfOptions o;
      o.word_order = word_order;
      o.lowercase = lower;
      o.eps_smoothing = lower;
      o.threads = 1;
      auto one = sentence_chrf(c.hyps, c.refs, o);
      ChrfScore corpus_one = corpus_chrf(c.hyps, c.refs, o);
      for (int t : {2, 3, 8, 0}) {
        o.threads = t;
        auto many = sentence_chrf(c.hyps, c.refs, o);
        ASSERT_EQ(one.size(), many.size());
        for (size_t i = 0; i < one.size(); ++i) ASSERT_EQ(one[i].stats, many[i].stats) << i;
        ChrfScore corpus_many = corpus_chrf(c.hyps, c.refs, o);
        EXPECT_EQ(corpus_one.stats, corpus_many.stats) << t;
        EXPECT_EQ(corpus_one.score, corpus_many.score) << t;
      }
    }
  }
}

}  // namespace
}  // namespace unieval::metrics
