// Python 3 str semantics (core/py_string.h) and the UTF-8 codec (core/utf8.h).
#include "core/py_string.h"

#include <gtest/gtest.h>

#include "core/utf8.h"

namespace unieval::core {
namespace {

TEST(PyStringTest, PythonWhitespace) {
  // U+3000 IDEOGRAPHIC SPACE and U+00A0 are whitespace for str.split(); U+200B is not.
  auto f = core::py_split(
      "  a\xe3\x80\x80"
      "b\xc2\xa0"
      "c\tdx\xe2\x80\x8by ");
  ASSERT_EQ(f.size(), 4u);
  EXPECT_EQ(f[0], "a");
  EXPECT_EQ(f[2], "c");
  EXPECT_EQ(f[3], "dx\xe2\x80\x8by");
  EXPECT_EQ(unieval::core::py_rstrip("ab \t\xe3\x80\x80"), "ab");
  EXPECT_EQ(unieval::core::py_strip("\x1c a \x1f"), "a");  // U+001C..U+001F are Python whitespace
}

TEST(PyStringTest, ReplaceIsLeftToRightAndNeverRescans) {
  EXPECT_EQ(unieval::core::py_replace("aaa", "aa", "b"), "ba");
  EXPECT_EQ(unieval::core::py_replace("abab", "ab", "ba"), "baba");
  EXPECT_EQ(unieval::core::py_replace("x", "", "y"),
            "x");  // an empty pattern leaves the text (our rule)
  std::string s = "a<q>b<q>";
  core::py_replace_in(s, "<q>", "\n");
  EXPECT_EQ(s, "a\nb\n");
  std::u32string u = U"&amp;amp;";
  core::py_replace_in(u, U"&amp;", U"&");
  EXPECT_EQ(u, U"&amp;");
}

TEST(PyStringTest, JoinSplit) {
  EXPECT_EQ(core::join_py_split(" a \xe3\x80\x80 b\t"), "a b");
  EXPECT_EQ(core::join_split_ascii("\x1c a  b\n"), "a b");
  EXPECT_EQ(core::join_py_split(""), "");
}

TEST(Utf8Test, DecodeEncodeRoundTrip) {
  std::string s;
  for (char32_t c : {U'a', U'\u00e9', U'\u20ac', U'\U0001F600'}) core::append_utf8(s, c);
  EXPECT_EQ(s, "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
  size_t i = 0;
  EXPECT_EQ(core::next_code_point(s, i), U'a');
  EXPECT_EQ(core::next_code_point(s, i), U'\u00e9');
  EXPECT_EQ(core::next_code_point(s, i), U'\u20ac');
  EXPECT_EQ(core::next_code_point(s, i), U'\U0001F600');
  EXPECT_EQ(i, s.size());
}

TEST(Utf8Test, InvalidBytesDecodeAsThemselvesOneByteAtATime) {
  std::string s = "\x80\xc3(\xe2\x82";  // stray continuation, cut 2-byte lead, cut 3-byte lead
  size_t i = 0;
  EXPECT_EQ(core::next_code_point(s, i), char32_t{0x80});
  EXPECT_EQ(i, 1u);
  EXPECT_EQ(core::next_code_point(s, i), char32_t{0xC3});  // '(' is no continuation byte
  EXPECT_EQ(core::next_code_point(s, i), U'(');
  EXPECT_EQ(core::next_code_point(s, i), char32_t{0xE2});  // cut by the end of the text
  EXPECT_EQ(core::next_code_point(s, i), char32_t{0x82});
  EXPECT_EQ(i, s.size());
  EXPECT_EQ(utf8_sequence_length(0x41), 1u);
  EXPECT_EQ(utf8_sequence_length(0xBF), 1u);
  EXPECT_EQ(utf8_sequence_length(0xC3), 2u);
  EXPECT_EQ(utf8_sequence_length(0xE2), 3u);
  EXPECT_EQ(utf8_sequence_length(0xF0), 4u);
}

}  // namespace
}  // namespace unieval::core

TEST(PyStringTest, SplitOnKeepsEmptyFieldsAsStrSplitSep) {
  using V = std::vector<std::string>;
  EXPECT_EQ(unieval::core::py_split_on("a\tb", '\t'), (V{"a", "b"}));  // "a\tb".split("\t")
  EXPECT_EQ(unieval::core::py_split_on("\ta\t\t", '\t'),
            (V{"", "a", "", ""}));                           // empty fields kept
  EXPECT_EQ(unieval::core::py_split_on("", '\t'), (V{""}));  // "".split("\t") == ['']
}

TEST(PyStringTest, StripCharsAsStrStripChars) {
  EXPECT_EQ(unieval::core::py_strip_chars(" \tx y\r\n", " \t\r\n"), "x y");
  EXPECT_EQ(unieval::core::py_strip_chars("\r\n \t", " \t\r\n"), "");
  EXPECT_EQ(unieval::core::py_strip_chars("\vx\v", " \t\r\n"), "\vx\v");  // only the chars given
}
