// GPT BPE: hand-derived merge cases on a tiny vocabulary (rank order, `</w>`, non-overlapping
// merges, unknown characters, special ids), file reading, and the shared 40,000-merge vocabulary
// on real text (round trip) when ../shared is present.
#include "models/tokenizer/bpe.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/error.h"
#include "core/io.h"
#include "tests/test_util.h"

namespace unieval::models {
namespace {

using unieval::testing::shared_dir;
using unieval::testing::TempDir;
using Pieces = std::vector<std::string>;

// merges by rank: 0 (l,o)  1 (lo,w</w>)  2 (e,r</w>)  3 (lo,w)  4 (low,er</w>)  5 (a,a)
BpeTokenizer tiny() {
  std::unordered_map<std::string, int32_t> enc = {
      {"<unk>", 0},   {"l", 1},      {"o", 2},   {"w", 3},         {"e", 4},      {"lo", 5},
      {"low</w>", 6}, {"er</w>", 7}, {"low", 8}, {"lower</w>", 9}, {",</w>", 10}, {"!</w>", 11},
      {"e</w>", 12},  {"x</w>", 13}, {"aa", 14}, {"a</w>", 15}};
  std::vector<std::pair<std::string, std::string>> merges = {
      {"l", "o"}, {"lo", "w</w>"}, {"e", "r</w>"}, {"lo", "w"}, {"low", "er</w>"}, {"a", "a"}};
  return BpeTokenizer(enc, merges);
}

TEST(BpeTest, MergesApplyInRankOrder) {
  const BpeTokenizer t = tiny();
  // l o w</w> -> (l,o)#0 -> lo w</w> -> (lo,w</w>)#1 -> low</w>
  EXPECT_EQ(t.bpe("low"), (Pieces{"low</w>"}));
  // l o w e r</w> -> lo w e r</w> -> (e,r</w>)#2 before (lo,w)#3 -> lo w er</w> -> low er</w> -> lower</w>
  EXPECT_EQ(t.bpe("lower"), (Pieces{"lower</w>"}));
  // l o w e</w>: (lo,w)#3 applies, (w,e</w>) has no rank: stops at low e</w>
  EXPECT_EQ(t.bpe("lowe"), (Pieces{"low", "e</w>"}));
}

TEST(BpeTest, WordFinalPieceCarriesEndOfWord) {
  const BpeTokenizer t = tiny();
  EXPECT_EQ(t.bpe("x"), (Pieces{"x</w>"}));  // a one-character word
  // (l,o) matches only where o is not word-final: "lo" ends in o</w>, so nothing merges.
  EXPECT_EQ(t.bpe("lo"), (Pieces{"l", "o</w>"}));
}

TEST(BpeTest, EveryNonOverlappingOccurrenceMergesLeftToRight) {
  const BpeTokenizer t = tiny();
  EXPECT_EQ(t.bpe("lolox"), (Pieces{"lo", "lo", "x</w>"}));
  EXPECT_EQ(t.bpe("aaa"), (Pieces{"aa", "a</w>"}));        // a a a</w>: the first pair only
  EXPECT_EQ(t.bpe("aaaa"), (Pieces{"aa", "a", "a</w>"}));  // a a a a</w>: (a, a</w>) is not (a,a)
}

TEST(BpeTest, EncodeLowercasesSplitsPunctuationAndMapsUnknownsToUnk) {
  const BpeTokenizer t = tiny();
  Encoding e = t.encode("LOW, Lower!");
  EXPECT_EQ(e.tokens, (Pieces{"low</w>", ",</w>", "lower</w>", "!</w>"}));
  EXPECT_EQ(e.ids, (std::vector<int32_t>{6, 10, 9, 11}));
  // U+2603 (a symbol, not split off) is no encoder entry: l + "☃</w>" -> <unk>
  e = t.encode("l\u2603");
  EXPECT_EQ(e.tokens, (Pieces{"l", "\u2603</w>"}));
  EXPECT_EQ(e.ids, (std::vector<int32_t>{1, 0}));
  std::vector<int32_t> ids;
  t.encode_ids("LOW, Lower!", &ids);
  EXPECT_EQ(ids, (std::vector<int32_t>{6, 10, 9, 11}));
}

TEST(BpeTest, SpecialTokensFollowTheEncoder) {
  const BpeTokenizer t = tiny();
  EXPECT_EQ(t.encoder_size(), 16);
  EXPECT_EQ(t.start_id(), 16);
  EXPECT_EQ(t.delimiter_id(), 17);
  EXPECT_EQ(t.classify_id(), 18);
  EXPECT_EQ(t.size(), 19);
  EXPECT_EQ(t.token(17), "_delimiter_");
  EXPECT_EQ(t.id("_classify_"), 18);
  EXPECT_EQ(t.decode({16, 6, 10, 9, 18}), "_start_low , lower _classify_");
  EXPECT_EQ(t.decode({16, 6, 10, 9, 18}, /*skip_special=*/true), "low , lower");
  EXPECT_THROW(t.decode({19}), InputError);
}

TEST(BpeTest, ReadsFilesAndRejectsBadMerges) {
  TempDir dir;
  dir.write("vocab.json", R"({"<unk>": 0, "l": 1, "o</w>": 2, "lo</w>": 3})");
  dir.write("merges.txt", "#version: 0.2\nl o</w>\n");
  BpeTokenizer t = BpeTokenizer::from_dir(dir.path().string());
  EXPECT_EQ(t.num_merges(), 1u);
  EXPECT_EQ(t.encode("lo").ids, (std::vector<int32_t>{3}));
  dir.write("merges.txt", "#version: 0.2\nl o</w>\nbad\n");
  EXPECT_THROW(BpeTokenizer::from_dir(dir.path().string()), InputError);
  dir.write("merges.txt", "#version: 0.2\n");
  dir.write("vocab.json", R"({"l": 0})");
  EXPECT_THROW(BpeTokenizer::from_dir(dir.path().string()), InputError);  // no <unk>
  dir.write("vocab.json", R"({"<unk>": 0, "l": 0})");
  EXPECT_THROW(BpeTokenizer::from_dir(dir.path().string()), InputError);  // repeated id
  EXPECT_THROW(BpeTokenizer::from_dir((dir.path() / "absent").string()), InputError);
}

const BpeTokenizer& gpt() {
  static BpeTokenizer t = BpeTokenizer::from_dir((shared_dir() / "data/vocab/gpt").string());
  return t;
}

TEST(BpeGptVocabTest, ReleaseVocabularyAndSpecialIds) {
  UNIEVAL_REQUIRE_SHARED("data/vocab/gpt/encoder_bpe_40000.json.gz");
  const BpeTokenizer& t = gpt();
  EXPECT_EQ(t.encoder_size(), 40478);  // = params_shapes.json's token embedding rows
  EXPECT_EQ(t.num_merges(), 40000u);
  EXPECT_EQ(t.unk_id(), 0);
  EXPECT_EQ(t.start_id(), 40478);
  EXPECT_EQ(t.delimiter_id(), 40479);
  EXPECT_EQ(t.classify_id(), 40480);
  EXPECT_EQ(t.encode("The").tokens, (Pieces{"the</w>"}));
  EXPECT_EQ(t.id("the</w>"), 481);
  // The first merges of vocab_40000.bpe are (t,h), (i,n), (e,d</w>).
  EXPECT_EQ(t.bpe("ined"),
            (Pieces{"ined</w>"}));  // i n e d</w> -> in e d</w> -> in ed</w> -> ined</w>
}

TEST(BpeGptVocabTest, RoundTripOnRealText) {
  UNIEVAL_REQUIRE_SHARED("data/vocab/gpt/encoder_bpe_40000.json.gz");
  UNIEVAL_REQUIRE_SHARED("data/glue/SST-2.dev.tsv.gz");
  const BpeTokenizer& t = gpt();
  const auto lines = core::read_lines((shared_dir() / "data/glue/SST-2.dev.tsv.gz").string());
  size_t checked = 0, pieces = 0, unks = 0;
  for (size_t i = 1; i < lines.size(); ++i) {
    const std::string text = lines[i].substr(0, lines[i].find('\t'));
    const Encoding e = t.encode(text);
    std::string words;
    for (const auto& w : t.pre_tokenize(text)) words += (words.empty() ? "" : " ") + w;
    for (int32_t id : e.ids) unks += id == t.unk_id();
    pieces += e.ids.size();
    if (std::find(e.ids.begin(), e.ids.end(), t.unk_id()) != e.ids.end()) continue;
    ASSERT_EQ(t.decode(e.ids), words) << "line " << i + 1;
    // Pieces of a word concatenate to the word plus </w>.
    ++checked;
  }
  EXPECT_GT(checked, 850u);  // SST-2 dev has 872 sentences
  EXPECT_EQ(unks, 0u);
  // BPE compresses: fewer pieces than characters, more than words.
  EXPECT_GT(pieces, checked * 10);
}

}  // namespace
}  // namespace unieval::models
