// WordPiece tokenizer: the golden vectors of the original BERT FullTokenizer, the Hugging Face
// option set, vocab reading, detokenisation and the Unicode data in use.
#include "models/tokenizer/wordpiece.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>

#include "core/error.h"
#include "tests/test_util.h"

namespace unieval::models {
namespace {

using unieval::testing::shared_dir;
using unieval::testing::TempDir;

const WordPieceTokenizer& golden_tokenizer(const std::string& vocab, bool lower) {
  static std::map<std::pair<std::string, bool>, std::unique_ptr<WordPieceTokenizer>> cache;
  auto& slot = cache[{vocab, lower}];
  if (!slot)
    slot = std::make_unique<WordPieceTokenizer>(WordPieceTokenizer::from_file(
        (shared_dir() / "data/vocab" / vocab).string(), TokenizerOptions::bert(lower)));
  return *slot;
}

TEST(WordPieceGoldenTest, EveryCaseMatchesTheOriginalFullTokenizer) {
  UNIEVAL_REQUIRE_SHARED("golden/wordpiece.jsonl");
  UNIEVAL_REQUIRE_SHARED("data/vocab/bert-uncased-vocab.txt");
  auto cases = unieval::testing::read_jsonl(shared_dir() / "golden/wordpiece.jsonl");
  ASSERT_EQ(cases.size(), 762u);
  int passed = 0;
  for (const auto& c : cases) {
    const auto& tok =
        golden_tokenizer(c["vocab"].get<std::string>(), c["do_lower_case"].get<bool>());
    std::string text =
        c["text"].get<std::string>();  // nlohmann joins surrogate-pair escapes into UTF-8
    auto basic = tok.basic_tokenize(text);
    auto enc = tok.encode(text);
    auto exp_basic = c["expected"]["basic_tokens"].get<std::vector<std::string>>();
    auto exp_tokens = c["expected"]["wordpiece_tokens"].get<std::vector<std::string>>();
    auto exp_ids = c["expected"]["ids"].get<std::vector<int32_t>>();
    EXPECT_EQ(basic, exp_basic) << c["id"];
    EXPECT_EQ(enc.tokens, exp_tokens) << c["id"];
    EXPECT_EQ(enc.ids, exp_ids) << c["id"];
    std::vector<int32_t> ids_only;
    tok.encode_ids(text, &ids_only);
    EXPECT_EQ(ids_only, exp_ids) << c["id"];
    passed += basic == exp_basic && enc.tokens == exp_tokens && enc.ids == exp_ids;
  }
  EXPECT_EQ(passed, 762);
}

// A small vocab for behaviour tests.
WordPieceTokenizer small(TokenizerOptions opts) {
  std::vector<std::string> v = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "un", "##want",
                                "##ed",  "wa",    "##nt",  "runn",  "##ing",  ",",  "[",
                                "]",     "cl",    "##s",   "a",     "##a",    "e",  "##e",
                                "caf",   "##e",   "!",     "hello", "é",      "##é"};
  return WordPieceTokenizer(Vocab(v), opts);
}

TEST(WordPieceTest, BertReadmeExample) {
  auto tok = small(TokenizerOptions::bert(true));
  auto enc = tok.encode("UNwant\u00E9d,running");
  EXPECT_EQ(enc.tokens, (std::vector<std::string>{"un", "##want", "##ed", ",", "runn", "##ing"}));
  EXPECT_EQ(enc.ids, (std::vector<int32_t>{5, 6, 7, 12, 10, 11}));
}

TEST(WordPieceTest, UncoverableWordIsOneUnk) {
  auto tok = small(TokenizerOptions::bert(true));
  EXPECT_EQ(tok.tokenize("unwantx hello"), (std::vector<std::string>{"[UNK]", "hello"}));
}

TEST(WordPieceTest, MaxInputCharsCountsCodePoints) {
  auto bert = small(TokenizerOptions::bert(false));
  std::string w200(200, 'a'), w201(201, 'a');
  EXPECT_EQ(bert.tokenize(w200).size(), 200u);
  EXPECT_EQ(bert.tokenize(w201), (std::vector<std::string>{"[UNK]"}));
  // 150 x "é" is 300 bytes but 150 code points: not [UNK] under BERT's 200.
  std::string e150;
  for (int i = 0; i < 150; ++i) e150 += "\u00E9";
  EXPECT_EQ(bert.tokenize(e150).size(), 150u);
  auto hf = small(TokenizerOptions::hugging_face(false));
  EXPECT_EQ(hf.tokenize(std::string(101, 'a')), (std::vector<std::string>{"[UNK]"}));
  EXPECT_EQ(hf.tokenize(std::string(100, 'a')).size(), 100u);
}

TEST(WordPieceTest, SpecialTokensAreSplitByDefaultAndKeptWholeInHfMode) {
  auto bert = small(TokenizerOptions::bert(true));
  EXPECT_EQ(bert.tokenize("[CLS] a"), (std::vector<std::string>{"[", "cl", "##s", "]", "a"}));
  auto hf = small(TokenizerOptions::hugging_face(true));
  auto enc = hf.encode("[CLS] a[SEP]a [cls]");
  EXPECT_EQ(enc.tokens,
            (std::vector<std::string>{"[CLS]", "a", "[SEP]", "a", "[", "cl", "##s", "]"}));
  EXPECT_EQ(enc.ids[0], 2);
  EXPECT_EQ(enc.ids[2], 3);
}

TEST(WordPieceTest, HfModeComposesDecomposedAccentsWhenCased) {
  // e + U+0301: the original keeps the two code points in cased mode, HF (NFC) composes them.
  auto bert = small(TokenizerOptions::bert(false));
  auto hf = small(TokenizerOptions::hugging_face(false));
  EXPECT_EQ(bert.basic_tokenize("e\u0301"), (std::vector<std::string>{"e\u0301"}));
  EXPECT_EQ(hf.basic_tokenize("e\u0301"), (std::vector<std::string>{"\u00E9"}));
  EXPECT_EQ(hf.tokenize("e\u0301"), (std::vector<std::string>{"é"}));
}

TEST(WordPieceTest, StripAccentsIsIndependentOfLowerCasing) {
  TokenizerOptions o = TokenizerOptions::bert(false);
  o.strip_accents = true;
  auto tok = small(o);
  EXPECT_EQ(tok.basic_tokenize("Caf\u00E9"), (std::vector<std::string>{"Cafe"}));
  TokenizerOptions keep = TokenizerOptions::bert(true);
  keep.strip_accents = false;
  EXPECT_EQ(small(keep).basic_tokenize("CAF\u00C9"), (std::vector<std::string>{"caf\u00E9"}));
}

TEST(WordPieceTest, CleaningCjkAndPunctuation) {
  auto tok = small(TokenizerOptions::bert(true));
  // ZWSP (Cf) glues, NBSP (Zs) splits, U+2028 splits, CJK split, € is a symbol, ¿ punctuation.
  EXPECT_EQ(tok.basic_tokenize("a\u200Bb c\u00A0d e\u2028f \u4E2D\u6587x \u20AC5 \u00BFq"),
            (std::vector<std::string>{"ab", "c", "d", "e", "f", "\u4E2D", "\u6587", "x", "\u20AC5",
                                      "\u00BF", "q"}));
  // Lower-casing: final sigma judged within the whitespace token; U+0130 -> i (+ stripped dot).
  EXPECT_EQ(tok.basic_tokenize("\u039F\u0394\u039F\u03A3 \u0130"),
            (std::vector<std::string>{"\u03BF\u03B4\u03BF\u03C2", "i"}));
  // A token of combining marks only disappears.
  EXPECT_EQ(tok.basic_tokenize("a \u0301\u0302 b"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(tok.basic_tokenize(""), std::vector<std::string>{});
}

TEST(WordPieceTest, InvalidUtf8IsAnInputError) {
  auto tok = small(TokenizerOptions::bert(true));
  EXPECT_THROW(tok.encode(std::string("a\xC3(b")), InputError);
}

TEST(WordPieceTest, UnknownTokenMustBeInTheVocab) {
  EXPECT_THROW(WordPieceTokenizer(Vocab({"a", "b"}), TokenizerOptions::bert(true)), InputError);
}

TEST(VocabTest, ReadsLikeBertLoadVocab) {
  TempDir dir;
  // CRLF and CR line ends, surrounding whitespace stripped, a duplicate maps to its last line.
  auto path = dir.write("vocab.txt", "[PAD]\r\n[UNK]\r  hello \nworld\nhello\n");
  Vocab v = Vocab::from_file(path);
  ASSERT_EQ(v.size(), 5u);
  EXPECT_EQ(v.token(2), "hello");
  EXPECT_EQ(v.id("hello"), 4);
  EXPECT_EQ(v.id("world"), 3);
  EXPECT_EQ(v.id("nothing"), -1);
  EXPECT_THROW(v.token(5), InputError);
  EXPECT_THROW(Vocab::from_file((dir.path() / "absent.txt").string()), InputError);
  EXPECT_THROW(Vocab::from_file(dir.write("empty.txt", "")), InputError);
}

// A copy owns its lookup tables: they must not point into the source's strings once the source
// is gone (the freed memory is then handed to another vocabulary of the same shape).
TEST(VocabTest, CopiesAndMovesLookUpInTheirOwnTokens) {
  std::optional<Vocab> copied, assigned;
  {
    Vocab source({"[PAD]", "hello", "##lo", "world"});
    copied.emplace(source);
    assigned.emplace();
    *assigned = source;
  }
  Vocab other({"aaaaa", "bbbbb", "ccccc", "ddddd"});
  for (const Vocab* v : {&*copied, &*assigned}) {
    EXPECT_EQ(v->id("hello"), 1);
    EXPECT_EQ(v->id("world"), 3);
    EXPECT_EQ(v->continuation_id("lo"), 2);
    EXPECT_EQ(v->id("aaaaa"), -1);
    EXPECT_EQ(v->max_token_bytes(), 5u);
  }
  Vocab moved(std::move(*copied));
  copied.reset();
  EXPECT_EQ(moved.id("hello"), 1);
  EXPECT_EQ(moved.continuation_id("lo"), 2);
  Vocab move_assigned;
  move_assigned = std::move(moved);
  EXPECT_EQ(move_assigned.id("world"), 3);
  EXPECT_EQ(move_assigned.token(1), "hello");
  // A tokenizer holds its vocabulary by value: a copy of one outliving the original still encodes.
  std::optional<WordPieceTokenizer> tok;
  {
    WordPieceTokenizer original(Vocab({"[PAD]", "[UNK]", "hello", "##lo", "world"}),
                                TokenizerOptions::bert(true));
    tok.emplace(original);
  }
  Vocab filler({"qqqqq", "rrrrr", "sssss", "ttttt", "uuuuu"});
  EXPECT_EQ(tok->encode("Hello world").ids, (std::vector<int32_t>{2, 4}));
}

TEST(DetokenizeTest, JoinsPiecesAndUndoesPunctuationSpacing) {
  auto tok = small(TokenizerOptions::bert(true));
  std::vector<std::string> t = {"un", "##want", "##ed", ",", "runn", "##ing", "!", "it", "'", "s"};
  EXPECT_EQ(tok.detokenize(t, {.join_pieces = true, .clean_up_spaces = false}),
            "unwanted , running ! it ' s");
  EXPECT_EQ(tok.detokenize(t), "unwanted, running! it's");
  EXPECT_EQ(tok.decode({2, 5, 6, 3}, {.skip_special = true}), "unwant");
  EXPECT_EQ(tok.decode({2, 5, 6, 3}), "[CLS] unwant [SEP]");
}

TEST(UnicodeDataTest, ClassesOfTheCharactersTheReadmeNames) {
  EXPECT_FALSE(icu_unicode_version().empty());
  EXPECT_EQ(char_class(0x180E), kCharDelete);  // Cf since Unicode 6.3
  EXPECT_EQ(char_class(0xFEFF), kCharDelete);
  EXPECT_EQ(char_class(0x00AD), kCharDelete);
  EXPECT_EQ(char_class(0x0085), kCharDelete);
  EXPECT_EQ(char_class(0x000B), kCharDelete);
  EXPECT_EQ(char_class(0x0000), kCharDelete);
  EXPECT_EQ(char_class(0xFFFD), kCharDelete);
  EXPECT_EQ(char_class('\t'), kCharSpace);
  EXPECT_EQ(char_class(0x3000), kCharSpace);
  EXPECT_EQ(char_class(0x2029), kCharSpace);
  EXPECT_EQ(char_class('$'), kCharPunct);
  EXPECT_EQ(char_class('`'), kCharPunct);
  EXPECT_EQ(char_class(0x20AC), kCharKeep);  // € Sc
  EXPECT_EQ(char_class(0x00B4), kCharKeep);  // ´ Sk
  EXPECT_EQ(char_class(0x3001), kCharPunct);
  EXPECT_EQ(char_class(0x0301), kCharMark);
  EXPECT_EQ(char_class(0x20DD), kCharKeep);  // Me stays
  EXPECT_EQ(char_class(0xFE0F), kCharMark);
  EXPECT_EQ(char_class(0x4E00), kCharCjk);
  EXPECT_EQ(char_class(0x2A700), kCharCjk);
  EXPECT_EQ(char_class(0x3042), kCharKeep);  // hiragana is not split
}

TEST(UnicodeDataTest, CharactersNewerThanUnicode14CountAsUnassigned) {
  // U+11F43 KAWI DANDA (Po) and U+11F00 KAWI SIGN CANDRABINDU (Mn) are Unicode 15.0.
  EXPECT_EQ(char_class(0x11F43, /*unicode14=*/true), kCharKeep);
  EXPECT_EQ(char_class(0x11F00, true), kCharKeep);
  if (icu_unicode_version() >= std::string("15")) {
    EXPECT_EQ(char_class(0x11F43, false), kCharPunct);
    EXPECT_EQ(char_class(0x11F00, false), kCharMark);
  }
  auto tok = small(TokenizerOptions::bert(true));
  EXPECT_EQ(tok.basic_tokenize("a\U00011F43b"), (std::vector<std::string>{"a\U00011F43b"}));
}

}  // namespace
}  // namespace unieval::models
