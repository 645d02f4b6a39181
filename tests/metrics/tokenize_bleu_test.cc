// The tokenisers behind BLEU/NIST: sacreBLEU 13a/intl/zh/char, Python string primitives, and
// mteval v13a/v14c/international normalisation with Perl's split.
#include <gtest/gtest.h>

#include "metrics/text/mteval_tokenize.h"
#include "metrics/text/py_lower.h"
#include "metrics/text/tokenize_13a.h"
#include "metrics/text/tokenize_intl.h"

namespace unieval::metrics::text {
namespace {

TEST(Tokenize13aTest, PunctuationNumbersAndEntities) {
  EXPECT_EQ(tokenize_13a("Hello, world!"), "Hello , world !");
  EXPECT_EQ(tokenize_13a("It costs $1,234.56 (approx.)"), "It costs $ 1,234.56 ( approx . )");
  EXPECT_EQ(tokenize_13a("2019-05-01 at 10:30"), "2019 - 05 - 01 at 10 : 30");
  EXPECT_EQ(tokenize_13a("a &amp; b &lt;c&gt; &quot;d&quot;"), "a & b < c > \" d \"");
  EXPECT_EQ(tokenize_13a("x<skipped>y"), "xy");
  EXPECT_EQ(tokenize_13a("end."), "end .");
  EXPECT_EQ(tokenize_13a("don't"), "don't");  // the apostrophe is not in the 13a class
  EXPECT_EQ(tokenize_13a(""), "");
}

TEST(Tokenize13aTest, PythonLower) {
  EXPECT_EQ(py_lower("ABC déF"), "abc déf");
  EXPECT_EQ(py_lower("\xc3\x9c"), "\xc3\xbc");   // Ü -> ü
  EXPECT_EQ(py_lower("\xc4\xb0"), "i\xcc\x87");  // İ -> i + combining dot (full mapping)
  EXPECT_EQ(py_lower("\xce\x9f\xce\xa3"), "\xce\xbf\xcf\x82");  // final sigma, as Python
}

TEST(TokenizeZhTest, CjkCharactersAndSacrebleuRangeQuirk) {
  EXPECT_EQ(tokenize_zh("我爱NLP."), "我 爱 NLP .");
  // sacrebleu's range "\u20000".."\u2a6d6" really covers U+2001..U+2A6D: an em dash is padded.
  EXPECT_EQ(tokenize_zh("a\xe2\x80\x94"
                        "b"),
            "a \xe2\x80\x94 b");
  // ... but U+2000 itself is not in it (and is whitespace anyway).
  EXPECT_EQ(tokenize_zh("  x  "), "x");
}

TEST(TokenizeCharTest, EveryCodePoint) {
  EXPECT_EQ(tokenize_char("ab c"), "a b   c");
  EXPECT_EQ(tokenize_char("\xc3\xa9t"), "\xc3\xa9 t");
}

TEST(TokenizeIntlTest, UnicodeClasses) {
  EXPECT_EQ(tokenize_intl("Hello, world! 1,000.5$"), "Hello , world ! 1,000.5 $");
  // Symbols (\p{S}) are always split; punctuation between digits stays.
  EXPECT_EQ(tokenize_intl("\xc2\xbd\xe2\x89\xa4"
                          "3\xe2\x80\xb0!"),
            "\xc2\xbd \xe2\x89\xa4 3 \xe2\x80\xb0 !");
  // mteval-v14 quirk kept by sacrebleu: a number followed by a final dot keeps the dot.
  EXPECT_EQ(tokenize_intl("in 2019."), "in 2019.");
}

TEST(MtevalTokenizeTest, V14cKeepsUrlsV13aShattersThem) {
  const std::string s = " Hello, see http://www.X.com/a-b/ NOW ";
  EXPECT_EQ(mteval_normalize(s, MtevalTokenization::kV14c, false),
            "hello , see http://www.X.com/a-b/ now");
  EXPECT_EQ(mteval_normalize(s, MtevalTokenization::kV13a, false),
            "hello , see http : / / www . x . com / a-b / now");
  EXPECT_EQ(mteval_normalize(s, MtevalTokenization::kV14c, true),
            "Hello , see http://www.X.com/a-b/ NOW");
}

TEST(MtevalTokenizeTest, AsciiOnlyLowercasingExceptInternational) {
  EXPECT_EQ(mteval_normalize("\xc3\x9c"
                             "ber",
                             MtevalTokenization::kV14c, false),
            "\xc3\x9c"
            "ber");
  EXPECT_EQ(mteval_normalize("\xc3\x9c"
                             "ber",
                             MtevalTokenization::kIntl, false),
            "\xc3\xbc"
            "ber");
}

TEST(MtevalTokenizeTest, PerlSplitAndDstc7Writer) {
  auto f = perl_split_ws("\ta b ");
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0], "");
  EXPECT_TRUE(perl_split_ws("").empty());
  EXPECT_EQ(dstc7_xml_segment(""), " __empty__ ");
  EXPECT_EQ(dstc7_xml_segment("a&b<c"), " a b c ");
  EXPECT_EQ(mteval_normalize(dstc7_xml_segment(""), MtevalTokenization::kV14c, false),
            "_ _ empty _ _");
}

}  // namespace
}  // namespace unieval::metrics::text
