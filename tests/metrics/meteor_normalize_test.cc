// METEOR 1.5's -norm tokeniser (Normalizer.normalizeLine, English), lowercasing and word keys.
#include "metrics/text/meteor_normalize.h"

#include <gtest/gtest.h>

#include "tests/test_util.h"

namespace unieval::metrics {
namespace {

text::NonbreakingPrefixes prefixes() {
  return text::NonbreakingPrefixes::parse("# comment\nMr\nDr\nNo #NUMERIC_ONLY#\n\n");
}

TEST(MeteorNormalizeTest, PrefixFileFormat) {
  text::NonbreakingPrefixes p = prefixes();
  EXPECT_EQ(p.type.size(), 3u);
  EXPECT_EQ(p.type.at("Mr"), text::NonbreakingPrefixes::kAny);
  EXPECT_EQ(p.type.at("No"), text::NonbreakingPrefixes::kNumericOnly);
}

TEST(MeteorNormalizeTest, DotsAndPrefixes) {
  text::NonbreakingPrefixes p = prefixes();
  EXPECT_EQ(text::meteor_normalize("He left.", p), "He left .");
  EXPECT_EQ(text::meteor_normalize("Mr. Smith left.", p), "Mr. Smith left .");
  EXPECT_EQ(text::meteor_normalize("Inc. is here", p), "Inc. is here");  // next token lowercase
  EXPECT_EQ(text::meteor_normalize("No. 5 and No. Way", p), "No. 5 and No . Way");
  EXPECT_EQ(text::meteor_normalize("the U.S. army", p), "the US army");
  EXPECT_EQ(text::meteor_normalize("wait... what", p), "wait ... what");
  EXPECT_EQ(text::meteor_normalize("3.5 % rose", p), "3.5 % rose");
}

TEST(MeteorNormalizeTest, CommasDashesQuotes) {
  text::NonbreakingPrefixes p = prefixes();
  EXPECT_EQ(text::meteor_normalize("a,b 1,000 5,a", p), "a , b 1,000 5 , a");
  // replaceAll does not rescan what it consumed: in "a,b,c" only the first comma is split.
  EXPECT_EQ(text::meteor_normalize("a,b,c", p), "a , b,c");
  EXPECT_EQ(text::meteor_normalize("co-op U.S.-based", p), "co op US based");
  EXPECT_EQ(text::meteor_normalize("a -- b \u2013 c", p), "a - b - c");
  EXPECT_EQ(text::meteor_normalize("\u201cquoted\u201d ''x''", p), "\" quoted \" \" x \"");
  EXPECT_EQ(text::meteor_normalize("it\u2019s `ok'", p), "it 's ' ok '");
}

TEST(MeteorNormalizeTest, Apostrophes) {
  text::NonbreakingPrefixes p = prefixes();
  EXPECT_EQ(text::meteor_normalize("don't stop", p), "don 't stop");
  EXPECT_EQ(text::meteor_normalize("the 1990's", p), "the 1990 's");
  EXPECT_EQ(text::meteor_normalize("rock 'n' roll", p), "rock ' n ' roll");
}

TEST(MeteorNormalizeTest, SymbolsAndWhitespace) {
  text::NonbreakingPrefixes p = prefixes();
  EXPECT_EQ(text::meteor_normalize("  a\tb  ", p), "a b");  // tokens re-joined by spaces
  EXPECT_EQ(text::meteor_normalize("x<y&z", p), "x < y & z");
  EXPECT_EQ(text::meteor_normalize("caf\u00e9 \u6771\u4eac!", p), "caf\u00e9 \u6771 \u4eac !");
  EXPECT_EQ(text::meteor_normalize("a\u00a0b", p), "a b");  // Unicode space
  EXPECT_EQ(text::meteor_normalize("Hello, world!", p, /*keep_punctuation=*/false), "Hello world");
}

TEST(MeteorNormalizeTest, JavaLowercaseTokenizeHash) {
  EXPECT_EQ(text::java_lowercase("The CAT"), "the cat");
  EXPECT_EQ(text::java_lowercase("\u00c9T\u00c9 \u03a3\u0391\u03a3"),
            "\u00e9t\u00e9 \u03c3\u03b1\u03c2");
  EXPECT_EQ(text::java_tokenize(" a\tb\r\nc "), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(text::java_string_hash("hello"), 99162322);
  EXPECT_EQ(text::java_string_hash("Aa"),
            text::java_string_hash("BB"));  // METEOR compares these equal
  EXPECT_EQ(text::java_string_hash(""), 0);
}

}  // namespace
}  // namespace unieval::metrics
