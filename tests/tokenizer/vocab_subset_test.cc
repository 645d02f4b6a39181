// A WordPiece vocabulary as a frequency-chosen subset of a base vocabulary
// (models/tokenizer/vocab_subset.h): the exact choice on a small fixture, what is always kept,
// determinism, [UNK] never growing where the base's characters suffice, and the input errors.
#include "models/tokenizer/vocab_subset.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.h"
#include "tests/test_util.h"

namespace unieval::models {
namespace {

using unieval::testing::TempDir;

// 37 entries: 5 specials (and two placeholders), 9 longer pieces, 21 single characters.
const std::vector<std::string> kBase = {
    "[PAD]", "[unused0]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "[X_SEP]",  // 0-6
    "the",   "cat",       "hat",   "sat",   "and",   "dog",    "##s",     "##at", "ca",
    "th",  // 7-16
    "t",     "h",         "e",     "c",     "a",     "s",      "n",       "d",    "o",
    "g",     ".",                                                                          // 17-27
    "##t",   "##h",       "##e",   "##a",   "##n",   "##d",    "##o",     "##g",  "##c"};  // 28-36

// Under the base (uncased): the cat sat . | the hat and the cat | cat ##s [UNK] dog ##s [UNK] |
// (nothing) | a [UNK] -> 15 words, 17 pieces, 3 [UNK]; the 3, cat 3, then hat sat and dog 1 each.
const std::vector<std::string> kCorpus = {"The cat sat.", "the hat and the cat", "cats, dogs!", "",
                                          "a zebra"};

PieceCounts base_counts(const WordPieceTokenizer& tok, int threads = 1) {
  PieceCounts c;
  count_pieces(tok, kCorpus, threads, &c);
  return c;
}

int count_unk(const WordPieceTokenizer& tok, const std::string& line) {
  int n = 0;
  for (const auto& t : tok.tokenize(line)) n += t == "[UNK]";
  return n;
}

TEST(VocabSubsetTest, CountsWordsPiecesAndUnknownPieces) {
  WordPieceTokenizer tok(Vocab(kBase), TokenizerOptions::bert(true));
  PieceCounts c = base_counts(tok);
  EXPECT_EQ(c.lines, 5u);
  EXPECT_EQ(c.pieces, 17u);
  EXPECT_EQ(c.unk, 3u);
  // Words counted from the pieces are the basic tokenizer's words.
  uint64_t words = 0;
  for (const auto& line : kCorpus) words += tok.basic_tokenize(line).size();
  EXPECT_EQ(c.words, words);
  EXPECT_EQ(c.words, 15u);
  EXPECT_EQ(c.count[7], 3u);   // the
  EXPECT_EQ(c.count[8], 3u);   // cat
  EXPECT_EQ(c.count[13], 2u);  // ##s
  EXPECT_EQ(c.count[2], 3u);   // [UNK]
}

TEST(VocabSubsetTest, ChoosesTheMostFrequentPiecesInBaseOrder) {
  WordPieceTokenizer tok(Vocab(kBase), TokenizerOptions::bert(true));
  const Vocab base(kBase);
  EXPECT_EQ(vocab_subset_minimum(base, "base.txt", VocabSubsetOptions().specials), 26u);
  VocabSubsetOptions o;
  o.size = 30;
  VocabSubset v = select_vocab_subset(base, "base.txt", base_counts(tok), o);
  // the, cat (3 each), then of the four pieces seen once the two with the lower ids: hat, sat.
  const std::vector<std::string> expected = {
      "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "hat", "sat", "##s",
      "t",     "h",     "e",     "c",     "a",      "s",   "n",   "d",   "o",   "g",
      ".",     "##t",   "##h",   "##e",   "##a",    "##n", "##d", "##o", "##g", "##c"};
  EXPECT_EQ(v.tokens, expected);
  EXPECT_EQ(v.text(), testing::join_lines(expected));
  EXPECT_EQ(v.specials, 5u);  // not [unused0], nor [X_SEP] (not in the tokenised corpus)
  EXPECT_EQ(v.characters, 21u);
  EXPECT_EQ(v.frequent, 4u);
  EXPECT_EQ(v.unseen, 0u);
  EXPECT_EQ(v.covered, 15u);  // all 17 base pieces but "and" and "dog"
  for (size_t k = 0; k < v.tokens.size(); ++k) EXPECT_EQ(kBase[size_t(v.base_ids[k])], v.tokens[k]);

  // The same counts from two threads; the same choice every time.
  VocabSubset again = select_vocab_subset(base, "base.txt", base_counts(tok, 2), o);
  EXPECT_EQ(again.tokens, v.tokens);

  // Beyond the corpus's 6 distinct pieces: unseen entries fill up in base order (##at, ca).
  o.size = 34;
  VocabSubset big = select_vocab_subset(base, "base.txt", base_counts(tok), o);
  EXPECT_EQ(big.frequent, 8u);
  EXPECT_EQ(big.unseen, 2u);
  EXPECT_NE(std::find(big.tokens.begin(), big.tokens.end(), "##at"), big.tokens.end());
  EXPECT_NE(std::find(big.tokens.begin(), big.tokens.end(), "ca"), big.tokens.end());
  EXPECT_EQ(std::find(big.tokens.begin(), big.tokens.end(), "th"), big.tokens.end());
}

TEST(VocabSubsetTest, BuildsFromFilesAndNeverAddsUnknownPieces) {
  TempDir tmp;
  const std::string corpus = tmp.write("corpus.txt", testing::join_lines(kCorpus));
  const Vocab base(kBase);
  VocabSubsetOptions o;
  o.size = 28;
  VocabSubset v = build_vocab_subset(base, "base.txt", TokenizerOptions::bert(true), {corpus}, o);
  ASSERT_EQ(v.tokens.size(), 28u);
  EXPECT_EQ(v.tokens[5], "the");
  EXPECT_EQ(v.tokens[6], "cat");
  EXPECT_EQ(v.base.pieces, 17u);
  // sat -> s ##a ##t; hat -> h ##a ##t; and -> a ##n ##d; dog -> d ##o ##g.
  EXPECT_EQ(v.subset.pieces, 25u);
  EXPECT_EQ(v.subset.words, 15u);
  EXPECT_EQ(v.base.unk, 3u);
  EXPECT_EQ(v.subset.unk, 3u);
  EXPECT_EQ(v.unk_growth(), 0);
  EXPECT_DOUBLE_EQ(v.pieces_per_word_base(), 17.0 / 15.0);
  EXPECT_DOUBLE_EQ(v.pieces_per_word_new(), 25.0 / 15.0);
  EXPECT_DOUBLE_EQ(v.coverage(), 13.0 / 17.0);  // the 3, cat 3, ##s 2, . 1, a 1, [UNK] 3
  // Line by line: no more [UNK] with the new vocabulary than with the base.
  WordPieceTokenizer old_tok(base, TokenizerOptions::bert(true));
  WordPieceTokenizer new_tok(Vocab(v.tokens), TokenizerOptions::bert(true));
  for (const auto& line : kCorpus)
    EXPECT_LE(count_unk(new_tok, line), count_unk(old_tok, line)) << line;
  // Deterministic whatever the thread count.
  o.threads = 3;
  EXPECT_EQ(build_vocab_subset(base, "base.txt", TokenizerOptions::bert(true), {corpus}, o).tokens,
            v.tokens);
}

TEST(VocabSubsetTest, KeepsOtherBracketedTokensTheCorpusHolds) {
  // Kept whole by the tokenizer (HF mode with [X_SEP] protected): it occurs, so it is a special.
  TokenizerOptions t = TokenizerOptions::hugging_face(true);
  t.special_tokens.push_back("[X_SEP]");
  TempDir tmp;
  const std::string corpus = tmp.write("corpus.txt", "the cat [X_SEP] sat\n");
  VocabSubsetOptions o;
  o.size = 28;
  VocabSubset v = build_vocab_subset(Vocab(kBase), "base.txt", t, {corpus}, o);
  EXPECT_EQ(v.specials, 6u);
  EXPECT_EQ(v.tokens[5], "[X_SEP]");
  EXPECT_EQ(v.frequent, 1u);
  EXPECT_EQ(v.tokens[6], "the");  // the, cat, sat once each: the lowest id
}

TEST(VocabSubsetTest, RefusesBadInputNamingTheFile) {
  TempDir tmp;
  const std::string corpus = tmp.write("corpus.txt", testing::join_lines(kCorpus));
  const Vocab base(kBase);
  const auto t = TokenizerOptions::bert(true);
  auto error_of = [&](const Vocab& b, const std::vector<std::string>& files,
                      size_t size) -> std::string {
    VocabSubsetOptions o;
    o.size = size;
    try {
      build_vocab_subset(b, "base.txt", t, files, o);
    } catch (const InputError& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_NE(error_of(base, {corpus}, 25).find("minimum 26"), std::string::npos);
  EXPECT_NE(error_of(base, {corpus}, 36).find("35 entries"), std::string::npos);
  std::vector<std::string> no_mask = kBase;
  no_mask[5] = "[MASQUE]";
  const std::string e = error_of(Vocab(no_mask), {corpus}, 28);
  EXPECT_NE(e.find("base.txt"), std::string::npos) << e;
  EXPECT_NE(e.find("[MASK]"), std::string::npos) << e;
  const std::string missing = (tmp.path() / "missing.txt").string();
  EXPECT_NE(error_of(base, {corpus, missing}, 28).find(missing), std::string::npos);
  const std::string empty = tmp.write("empty.txt", "");
  EXPECT_NE(error_of(base, {empty}, 28).find("empty.txt: corpus file is empty"), std::string::npos);
  const std::string blank = tmp.write("blank.txt", "\n  \n");
  EXPECT_NE(error_of(base, {blank}, 28).find("blank.txt: corpus file has no words"),
            std::string::npos);
  const std::string bad = tmp.write("bad.txt", "the cat\nthe \xff cat\n");
  EXPECT_NE(error_of(base, {bad}, 28).find("bad.txt:2"), std::string::npos);
}

}  // namespace
}  // namespace unieval::models
