// Fuzz target: the WordPiece and GPT BPE tokenisers (models/tokenizer/, unieval::tokenizer).
//
// Input: one mode byte, then bytes. Mode bit 0x40 picks BPE, else WordPiece; bit 0x80 makes the
// bytes a vocabulary file (vocab.txt, or a BPE merges file) read from disk and then used on a fixed
// sentence, else the bytes are the text encoded with a fixed vocabulary; the low bits pick
// options (lower case, Hugging Face mode). Invariants: encode gives one id per token, every id
// decodes (decode(encode(x)) throws nothing), and invalid UTF-8 text is an InputError.
// Vocabularies: $UNIEVAL_FUZZ_VOCAB (a vocab.txt) and $UNIEVAL_FUZZ_GPT_DIR (the GPT release's
// folder) when set (fuzz/run.sh points them at ../shared/data/vocab), else small built-in ones.
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "fuzz/fuzz_util.h"
#include "models/tokenizer/bpe.h"
#include "models/tokenizer/wordpiece.h"

namespace {

using unieval::models::BpeOptions;
using unieval::models::BpeTokenizer;
using unieval::models::TokenizerOptions;
using unieval::models::Vocab;
using unieval::models::WordPieceTokenizer;

const char* kSentence =
    "Hello, World! The quick brown fox's naïve café \xe4\xb8\xad\xe6\x96\x87 [MASK] don't.";

Vocab builtin_vocab() {
  return Vocab({"[PAD]", "[UNK]",  "[CLS]", "[SEP]", "[MASK]", "the",   "quick", "brown",
                "fox",   "'",      "s",     "hello", ",",      "world", "!",     "un",
                "##aff", "##able", "##s",   "a",     "##b",    "c",     "##d",   "\xe4\xb8\xad",
                ".",     "don",    "t",     "cafe",  "naive",  "##e"});
}

const Vocab& file_vocab() {
  static const Vocab v = [] {
    const char* path = std::getenv("UNIEVAL_FUZZ_VOCAB");
    return path && *path ? Vocab::from_file(path) : builtin_vocab();
  }();
  return v;
}

TokenizerOptions wordpiece_options(uint8_t mode) {
  TokenizerOptions o =
      (mode & 2) ? TokenizerOptions::hugging_face(mode & 1) : TokenizerOptions::bert(mode & 1);
  if (mode & 4) o.max_input_chars_per_word = 5;
  if (mode & 8) o.strip_accents = !(mode & 1);
  if (mode & 16) o.tokenize_chinese_chars = false;
  return o;
}

// encode, checked against itself: one id per token, and encode_ids gives the same ids.
template <typename Tokenizer>
unieval::models::Encoding encode_checked(const Tokenizer& tok, std::string_view text) {
  auto enc = tok.encode(text);
  UNIEVAL_FUZZ_CHECK(enc.tokens.size() == enc.ids.size());
  std::vector<int32_t> ids;
  tok.encode_ids(text, &ids);
  UNIEVAL_FUZZ_CHECK(ids == enc.ids);
  return enc;
}

void exercise(const WordPieceTokenizer& tok, std::string_view text, uint8_t mode) {
  try {
    auto enc = encode_checked(tok, text);
    unieval::models::DetokenizeOptions d;
    d.skip_special = mode & 32;
    (void)tok.decode(enc.ids, d);
    (void)tok.detokenize(enc.tokens, d);
    (void)tok.basic_tokenize(text);
  } catch (const unieval::InputError&) {
    UNIEVAL_FUZZ_CHECK(!unieval::fuzz::valid_utf8(text));
  }
}

std::unique_ptr<BpeTokenizer> builtin_bpe() {
  std::unordered_map<std::string, int32_t> enc;
  std::vector<std::string> pieces = {
      "<unk>", "l",     "o",     "w",     "e",     "r",     "n",      "s",       "t",     "i",
      "d",     "h",     ",",     "!",     "lo",    "low",   "er</w>", "w</w>",   "r</w>", "low</w>",
      "s</w>", "t</w>", "e</w>", "!</w>", ",</w>", "n</w>", "d</w>",  "est</w>", "es",    "est"};
  for (size_t i = 0; i < pieces.size(); ++i) enc[pieces[i]] = static_cast<int32_t>(i);
  std::vector<std::pair<std::string, std::string>> merges = {
      {"l", "o"}, {"lo", "w"}, {"e", "r</w>"}, {"lo", "w</w>"}, {"e", "s"}, {"es", "t</w>"}};
  return std::make_unique<BpeTokenizer>(std::move(enc), std::move(merges));
}

const BpeTokenizer& fixed_bpe() {
  static const std::unique_ptr<BpeTokenizer> t = [] {
    const char* dir = std::getenv("UNIEVAL_FUZZ_GPT_DIR");
    return dir && *dir ? std::make_unique<BpeTokenizer>(BpeTokenizer::from_dir(dir))
                       : builtin_bpe();
  }();
  return *t;
}

void exercise(const BpeTokenizer& tok, std::string_view text) {
  try {
    auto enc = encode_checked(tok, text);
    for (int32_t id : enc.ids) UNIEVAL_FUZZ_CHECK(id >= 0 && id < tok.size());
    (void)tok.decode(enc.ids, false);
    (void)tok.decode(enc.ids, true);
  } catch (const unieval::InputError&) {
    UNIEVAL_FUZZ_CHECK(!unieval::fuzz::valid_utf8(text));
  }
}

}  // namespace

// The vocabulary and the GPT BPE files (40,000 merges under UNIEVAL_FUZZ_GPT_DIR) load once here,
// before libFuzzer starts timing inputs: under ASan on a loaded machine the load alone ran past
// the first input's time limit.
extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  (void)file_vocab();
  (void)fixed_bpe();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto [mode, text] = unieval::fuzz::split_mode(data, size);
  bool bpe = mode & 0x40, vocab_file = mode & 0x80;
  if (!bpe && !vocab_file) {
    // One tokenizer per option set (building one copies and indexes the vocabulary).
    static std::unique_ptr<WordPieceTokenizer> cache[32];
    auto& tok = cache[mode & 31];
    if (!tok) tok = std::make_unique<WordPieceTokenizer>(file_vocab(), wordpiece_options(mode));
    exercise(*tok, text, mode);
  } else if (!bpe) {
    unieval::fuzz::TempFile f(text, ".txt");
    std::unique_ptr<WordPieceTokenizer> tok;
    try {
      tok = std::make_unique<WordPieceTokenizer>(
          WordPieceTokenizer::from_file(f.path(), wordpiece_options(mode)));
    } catch (const unieval::InputError&) {
      return 0;  // a vocab without the unk token, an empty or non-UTF-8 file
    }
    exercise(*tok, kSentence, mode);
    exercise(*tok, "un affable abd xyz", mode);
  } else if (!vocab_file) {
    exercise(fixed_bpe(), text);
  } else {
    unieval::fuzz::TempFile merges(text, ".bpe");
    unieval::fuzz::TempFile encoder(
        R"({"<unk>": 0, "l": 1, "o": 2, "w</w>": 3, "lo": 4, "low</w>": 5, "e": 6, "r</w>": 7})",
        ".json");
    std::unique_ptr<BpeTokenizer> tok;
    try {
      tok = std::make_unique<BpeTokenizer>(BpeTokenizer::from_files(encoder.path(), merges.path()));
    } catch (const unieval::InputError&) {
      return 0;
    }
    exercise(*tok, "low lower lowest");
  }
  return 0;
}
