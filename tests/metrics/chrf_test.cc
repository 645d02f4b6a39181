// chrF++ (word n-grams) on cases small enough to derive by hand; chrF itself is checked against
// sacreBLEU on every golden case in bleu_golden_test.cc.
#include "metrics/chrf.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace unieval::metrics
