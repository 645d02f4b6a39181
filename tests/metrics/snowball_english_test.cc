// Snowball English (Porter2) stemmer: word/stem pairs from the algorithm's published sample
// vocabulary and its special cases.
#include "metrics/text/snowball_english.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace unieval::metrics {
namespace {

TEST(SnowballEnglishTest, SampleVocabulary) {
  const std::vector<std::pair<const char*, const char*>> pairs = {
      {"consign", "consign"},
      {"consigned", "consign"},
      {"consigning", "consign"},
      {"consignment", "consign"},
      {"consist", "consist"},
      {"consisted", "consist"},
      {"consistency", "consist"},
      {"consistent", "consist"},
      {"consistently", "consist"},
      {"consisting", "consist"},
      {"consists", "consist"},
      {"consolation", "consol"},
      {"consolations", "consol"},
      {"consolatory", "consolatori"},
      {"console", "consol"},
      {"consoled", "consol"},
      {"consoles", "consol"},
      {"consolidate", "consolid"},
      {"consolidated", "consolid"},
      {"consolidating", "consolid"},
      {"consoling", "consol"},
      {"consolingly", "consol"},
      {"consols", "consol"},
      {"consonant", "conson"},
      {"consort", "consort"},
      {"consorted", "consort"},
      {"consorting", "consort"},
      {"conspicuous", "conspicu"},
      {"conspicuously", "conspicu"},
      {"conspiracy", "conspiraci"},
      {"conspirator", "conspir"},
      {"conspirators", "conspir"},
      {"conspire", "conspir"},
      {"conspired", "conspir"},
      {"conspiring", "conspir"},
      {"constable", "constabl"},
      {"constables", "constabl"},
      {"constance", "constanc"},
      {"constancy", "constanc"},
      {"constant", "constant"},
      {"knack", "knack"},
      {"knackeries", "knackeri"},
      {"knaves", "knave"},
      {"knavish", "knavish"},
      {"kneaded", "knead"},
      {"kneading", "knead"},
      {"knee", "knee"},
      {"kneel", "kneel"},
      {"kneeled", "kneel"},
      {"kneeling", "kneel"},
      {"kneels", "kneel"},
      {"knees", "knee"},
      {"knell", "knell"},
      {"knelt", "knelt"},
      {"knew", "knew"},
      {"knick", "knick"},
      {"knif", "knif"},
      {"knife", "knife"},
      {"knight", "knight"},
      {"knightly", "knight"},
      {"knights", "knight"},
      {"knit", "knit"},
      {"knits", "knit"},
      {"knitted", "knit"},
      {"knitting", "knit"},
      {"knives", "knive"},
      {"knob", "knob"},
      {"knobs", "knob"},
      {"knock", "knock"},
      {"knocked", "knock"},
      {"knocker", "knocker"},
      {"knockers", "knocker"},
      {"knocking", "knock"},
      {"knocks", "knock"},
      {"knopp", "knopp"},
      {"knot", "knot"},
      {"knots", "knot"},
  };
  for (const auto& [word, stem] : pairs) EXPECT_EQ(text::snowball_english_stem(word), stem) << word;
}

TEST(SnowballEnglishTest, SpecialCases) {
  // exception1 (whole words), exception2 (after Step 1a), the gener/commun/arsen prefixes.
  EXPECT_EQ(text::snowball_english_stem("skies"), "sky");
  EXPECT_EQ(text::snowball_english_stem("dying"), "die");
  EXPECT_EQ(text::snowball_english_stem("early"), "earli");
  EXPECT_EQ(text::snowball_english_stem("news"), "news");
  EXPECT_EQ(text::snowball_english_stem("innings"), "inning");
  EXPECT_EQ(text::snowball_english_stem("succeeding"), "succeed");
  EXPECT_EQ(text::snowball_english_stem("generously"), "generous");
  EXPECT_EQ(text::snowball_english_stem("communism"), "communism");
  EXPECT_EQ(text::snowball_english_stem("arsenal"), "arsenal");
  // Step 1a: ies/ied after one letter, the s rule, apostrophes.
  EXPECT_EQ(text::snowball_english_stem("ties"), "tie");
  EXPECT_EQ(text::snowball_english_stem("cries"), "cri");
  EXPECT_EQ(text::snowball_english_stem("gas"), "gas");
  EXPECT_EQ(text::snowball_english_stem("gaps"), "gap");
  EXPECT_EQ(text::snowball_english_stem("boy's"), "boy");
  // Step 1b/1c: short words get their e back, doubles undone, y -> i.
  EXPECT_EQ(text::snowball_english_stem("hoping"), "hope");
  EXPECT_EQ(text::snowball_english_stem("hopping"), "hop");
  EXPECT_EQ(text::snowball_english_stem("cry"), "cri");
  EXPECT_EQ(text::snowball_english_stem("say"), "say");
  EXPECT_EQ(text::snowball_english_stem("agreed"), "agre");
  // Fewer than three letters, no lowercasing, non-ASCII letters are non-vowels.
  EXPECT_EQ(text::snowball_english_stem("is"), "is");
  EXPECT_EQ(text::snowball_english_stem("Running"), "Run");
  EXPECT_EQ(text::snowball_english_stem("cafés"), "café");
  EXPECT_EQ(text::snowball_english_stem(""), "");
}

}  // namespace
}  // namespace unieval::metrics
