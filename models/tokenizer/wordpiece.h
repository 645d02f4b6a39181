#pragma once
// Follows google-research/bert (Apache-2.0) and HF transformers (Apache-2.0) behaviour; no code
// copied; see THIRD_PARTY_NOTICES.md.
// BERT WordPiece tokenisation: BasicTokenizer + WordpieceTokenizer, the tokeniser of BERT, UniLM,
// MiniLM and ERNIE-GEN checkpoints.
//
// By default the output is identical to the original `FullTokenizer` of google-research/bert
// (`tokenization.py` @eedf5716, checked against ../shared/golden/wordpiece.jsonl, produced by
// running that file under Python 3.11 / Unicode 14):
//   1. clean: U+0000, U+FFFD and every Cc/Cf character are deleted, except \t \n \r which, like
//      every Zs character, become a space (`_clean_text`);
//   2. CJK: every code point in the CJK Unified Ideographs blocks (4E00-9FFF, 3400-4DBF,
//      20000-2A6DF, 2A700-2B81F, 2B820-2CEAF, F900-FAFF, 2F800-2FA1F) is surrounded by spaces
//      (`_tokenize_chinese_chars`); kana, hangul and fullwidth forms are not;
//   3. whitespace split as Python's `str.split()` (after step 1 that also splits on U+2028/2029);
//   4. uncased only, per whitespace token: full Unicode lower-casing (Python `str.lower()`: final
//      sigma judged within the token, U+0130 -> i + U+0307), NFD, removal of every Mn character
//      (`_run_strip_accents`); a token made only of Mn characters disappears;
//   5. punctuation split: ASCII 33-47, 58-64, 91-96, 123-126 and every category P* character is its
//      own token (`_run_split_on_punc`); symbols (Sc, Sk, Sm, So) such as `€` are not split;
//   6. WordPiece: greedy longest-match-first over code points with `##` for non-initial pieces; if
//      some position matches nothing the whole word is `[UNK]`; a word of more than 200 code points
//      is `[UNK]` without trying (`WordpieceTokenizer.tokenize`);
//   7. special tokens written in the text are NOT protected: "[CLS]" -> "[", "cl", "##s", "]".
//
// Hugging Face `BertTokenizer` differs (see README_wordpiece.md) and is available as
// `TokenizerOptions::hugging_face(lower)`: words over 100 code points are [UNK], NFC before the
// whitespace split (transformers >= 4.31), and [CLS] [SEP] [MASK] [UNK] [PAD] in the raw text are
// kept whole (split out even when glued to other characters, like HF's added-token trie).
//
// Unicode data: ICU (Debian bookworm: ICU 72 = Unicode 15.0). The reference ran with Unicode 14.0
// tables, so by default (`unicode14` = true) every code point ICU reports as assigned after 14.0 is
// treated as unassigned (Cn: kept, not split, not deleted, no case mapping or decomposition), which
// reproduces Python 3.11's `unicodedata` for every code point (checked code point by code point on
// category class, lower-casing and NFD; see the tokenizer tests and README section `models`).
//
//   auto tok = unieval::models::WordPieceTokenizer::from_file("vocab.txt", {.do_lower_case = true});
//   auto enc = tok.encode("UNwant\u00E9d,running");   // tokens {"un", "##want", "##ed", ",", "runn", "##ing"}
//   std::string text = tok.detokenize(enc.tokens);    // "unwanted, running" (with clean_up_spaces)
//
// | option                   | default   | meaning                                                     |
// |--------------------------|-----------|-------------------------------------------------------------|
// | do_lower_case            | true      | lower-case (and by default strip accents) each token        |
// | strip_accents            | unset     | NFD + drop Mn; unset = same as do_lower_case (BERT)          |
// | tokenize_chinese_chars   | true      | split CJK ideographs into one token each                    |
// | max_input_chars_per_word | 200       | longer words are [UNK] (BERT 200, HF 100)                   |
// | nfc                      | false     | NFC-normalise the whole text first (HF >= 4.31)             |
// | keep_special_tokens      | false     | `special_tokens` in the raw text stay whole (HF)            |
// | special_tokens           | [CLS] [SEP] [MASK] [UNK] [PAD] | protected tokens when keep_special_tokens |
// | unk_token                | [UNK]     | token for words WordPiece cannot cover (must be in vocab)   |
// | unicode14                | true      | treat code points assigned after Unicode 14.0 as unassigned |
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace unieval::models {

struct TokenizerOptions {
  bool do_lower_case = true;              // lower-case each whitespace token (Python str.lower)
  std::optional<bool> strip_accents;      // NFD + drop Mn; unset = do_lower_case (BERT, HF None)
  bool tokenize_chinese_chars = true;     // surround CJK ideographs with spaces
  size_t max_input_chars_per_word = 200;  // code points; longer words become unk_token
  bool nfc = false;                       // NFC-normalise the text before splitting (HF)
  bool keep_special_tokens = false;       // special_tokens in the raw text stay whole (HF)
  std::vector<std::string> special_tokens = {"[CLS]", "[SEP]", "[MASK]", "[UNK]", "[PAD]"};
  std::string unk_token = "[UNK]";  // must be in the vocab
  bool unicode14 = true;            // code points newer than Unicode 14.0 count as Cn

  // The original google-research/bert FullTokenizer (the default).
  static TokenizerOptions bert(bool lower) {
    TokenizerOptions o;
    o.do_lower_case = lower;
    return o;
  }
  // Hugging Face BertTokenizer (slow, transformers >= 4.31): 100-character words, NFC, special
  // tokens kept whole.
  static TokenizerOptions hugging_face(bool lower) {
    TokenizerOptions o;
    o.do_lower_case = lower;
    o.max_input_chars_per_word = 100;
    o.nfc = true;
    o.keep_special_tokens = true;
    return o;
  }
  // Compact description for signatures, e.g. "wordpiece:uncased:max200".
  std::string signature() const;
};

// A WordPiece vocabulary: token i is line i (0-based) of vocab.txt.
//
// Read like BERT's `load_vocab`: lines end at \n, \r\n or \r (Python text mode), each line is
// stripped of surrounding whitespace, and a duplicate token maps to its LAST line (the dict
// assignment) while id -> token keeps every line.
class Vocab {
 public:
  Vocab() = default;
  explicit Vocab(std::vector<std::string> tokens);
  // A copy re-indexes: the lookup tables hold views into tokens_, which a member-wise copy would
  // leave pointing into the source. A move keeps them valid (a moved vector keeps its strings
  // where they are), so it is the default one.
  Vocab(const Vocab& other);
  Vocab& operator=(const Vocab& other);
  Vocab(Vocab&&) = default;
  Vocab& operator=(Vocab&&) = default;
  // Reads vocab.txt; InputError on a missing, empty or non-UTF-8 file.
  static Vocab from_file(const std::string& path);

  size_t size() const { return tokens_.size(); }
  // -1 when absent.
  int32_t id(std::string_view token) const;
  // id of a continuation piece: id("##" + piece), -1 when absent.
  int32_t continuation_id(std::string_view piece) const;
  // Throws InputError when out of range.
  const std::string& token(int32_t id) const;
  bool contains(std::string_view token) const { return id(token) >= 0; }
  // Longest entry in bytes (bounds the WordPiece search).
  size_t max_token_bytes() const { return max_bytes_; }

 private:
  void index();
  std::vector<std::string> tokens_;
  std::unordered_map<std::string_view, int32_t> ids_;   // views into tokens_
  std::unordered_map<std::string_view, int32_t> cont_;  // "##x" entries under "x"
  size_t max_bytes_ = 0;
};

// Tokens and ids of one text.
struct Encoding {
  std::vector<std::string> tokens;
  std::vector<int32_t> ids;
};

struct DetokenizeOptions {
  bool join_pieces = true;      // glue "##" pieces onto the previous token (UniLM `detokenize`)
  bool clean_up_spaces = true;  // HF `clean_up_tokenization`: " ." -> ".", " ," -> ",", " n't" ...
  bool skip_special = false;    // drop [CLS] [SEP] [PAD] [MASK] (special_tokens) from the output
};

class WordPieceTokenizer {
 public:
  WordPieceTokenizer(Vocab vocab, TokenizerOptions options);
  static WordPieceTokenizer from_file(const std::string& vocab_path, TokenizerOptions options = {});

  // BasicTokenizer output (steps 1-5 above, plus protected special tokens in HF mode).
  std::vector<std::string> basic_tokenize(std::string_view text) const;
  // Word pieces and their ids. text must be valid UTF-8 (InputError otherwise).
  Encoding encode(std::string_view text) const;
  std::vector<std::string> tokenize(std::string_view text) const { return encode(text).tokens; }
  // Appends the ids only (no token strings: the fast path for corpora).
  void encode_ids(std::string_view text, std::vector<int32_t>* ids) const;

  // Tokens -> text: "##" pieces joined, tokens separated by one space, punctuation spacing undone
  // as configured. Not an inverse of tokenize (case, accents and spacing are lost).
  std::string detokenize(const std::vector<std::string>& tokens,
                         const DetokenizeOptions& options = {}) const;
  std::string decode(const std::vector<int32_t>& ids, const DetokenizeOptions& options = {}) const;

  const Vocab& vocab() const { return vocab_; }
  const TokenizerOptions& options() const { return options_; }

 private:
  struct Span {
    uint32_t begin, end;  // bytes in the scratch buffer
    int32_t special_id;   // >= 0: a protected special token
  };
  void basic_spans(std::string_view text, std::string& buf, std::vector<Span>& spans) const;
  void basic_segment(std::string_view text, std::string& buf, std::vector<Span>& spans) const;
  void finish_word(std::string& buf, size_t word_begin, std::vector<Span>& spans) const;
  // Appends the pieces of one basic token (ids, and tokens when non-null).
  void wordpiece(std::string_view word, std::vector<int32_t>* ids,
                 std::vector<std::string>* tokens) const;

  Vocab vocab_;
  TokenizerOptions options_;
  bool lower_ = true;
  bool strip_ = true;
  int32_t unk_id_ = -1;
};

// Code-point classes the BasicTokenizer uses (exposed for the Unicode-data tests).
enum CharClass : uint8_t {
  kCharKeep = 0,    // an ordinary character
  kCharDelete = 1,  // removed by _clean_text (NUL, U+FFFD, Cc, Cf except \t \n \r)
  kCharSpace = 2,   // becomes / is whitespace (\t \n \r, Zs, Python whitespace)
  kCharCjk = 4,     // CJK ideograph: a token of its own
  kCharPunct = 8,   // BERT punctuation: own token
  kCharMark = 16,   // category Mn: stripped with accents
};
// Classes of a code point under the given Unicode data (unicode14: as Python 3.11).
uint8_t char_class(uint32_t cp, bool unicode14 = true);
// The Unicode version of the ICU in use, e.g. "15.0".
std::string icu_unicode_version();

}  // namespace unieval::models
