// Follows the structure of google-research/bert's tokenization.py (Apache-2.0): `FullTokenizer`,
// `BasicTokenizer._clean_text` / `_tokenize_chinese_chars` / `_run_strip_accents` /
// `_run_split_on_punc`, `WordpieceTokenizer.tokenize`, `load_vocab`, ported by reading its source,
// no code copied; HF transformers (Apache-2.0) behaviour; see THIRD_PARTY_NOTICES.md.
// BERT BasicTokenizer + WordPiece. See wordpiece.h for the behaviour.
#include "models/tokenizer/wordpiece.h"

#include <unicode/locid.h>
#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>

#include "core/error.h"
#include "core/io.h"
#include "core/py_string.h"
#include "core/utf8.h"

namespace unieval::models {

namespace {

// ---- Unicode classes ---------------------------------------------------------------------------

bool newer_than_unicode14(UChar32 c) {
  UVersionInfo v;
  u_charAge(c, v);
  return v[0] > 14 || (v[0] == 14 && (v[1] > 0 || v[2] > 0));
}

// _is_chinese_char: a fixed list of code-point ranges (assigned or not).
bool is_cjk(UChar32 c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) ||
         (c >= 0x20000 && c <= 0x2A6DF) || (c >= 0x2A700 && c <= 0x2B73F) ||
         (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B820 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

uint8_t compute_class(UChar32 c, bool unicode14) {
  // _clean_text: NUL and U+FFFD go; \t \n \r are whitespace (checked before the Cc test).
  if (c == 0 || c == 0xFFFD) return kCharDelete;
  if (c == '\t' || c == '\n' || c == '\r' || c == ' ') return kCharSpace;
  // _is_punctuation: the ASCII ranges BERT treats as punctuation whatever their category.
  if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) ||
      (c >= 123 && c <= 126))
    return kCharPunct;
  int8_t type = (unicode14 && newer_than_unicode14(c)) ? int8_t(U_UNASSIGNED) : u_charType(c);
  switch (type) {
    case U_CONTROL_CHAR:
    case U_FORMAT_CHAR:
      return kCharDelete;  // _is_control
    case U_SPACE_SEPARATOR:
      return kCharSpace;  // _is_whitespace (Zs)
    case U_LINE_SEPARATOR:
    case U_PARAGRAPH_SEPARATOR:
      return kCharSpace;  // kept by _clean_text but Python's str.split() splits on them
    default:
      break;
  }
  uint8_t cls = kCharKeep;
  if (is_cjk(c)) cls |= kCharCjk;
  uint32_t mask = U_MASK(type);
  if (mask & U_GC_P_MASK) cls |= kCharPunct;
  if (type == U_NON_SPACING_MARK) cls |= kCharMark;
  return cls;
}

// BMP classes are tabulated once (65,536 ICU lookups, about a millisecond); astral code points
// are looked up on the fly.
const std::array<uint8_t, 0x10000>& bmp_table(bool unicode14) {
  static const auto make = [](bool u14) {
    auto t = std::make_unique<std::array<uint8_t, 0x10000>>();
    for (UChar32 c = 0; c < 0x10000; ++c) (*t)[c] = compute_class(c, u14);
    return t;
  };
  static const std::unique_ptr<std::array<uint8_t, 0x10000>> t14 = make(true);
  static const std::unique_ptr<std::array<uint8_t, 0x10000>> t15 = make(false);
  return unicode14 ? *t14 : *t15;
}

inline uint8_t class_of(uint32_t cp, const std::array<uint8_t, 0x10000>& bmp, bool unicode14) {
  if (cp < 0x10000) return bmp[cp];
  return compute_class(static_cast<UChar32>(cp), unicode14);
}

// ---- UTF-8 -------------------------------------------------------------------------------------

inline bool is_continuation_byte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

size_t count_code_points(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += !is_continuation_byte(c);
  return n;
}

std::string to_utf8(const icu::UnicodeString& us) {
  std::string out;
  us.toUTF8String(out);
  return out;
}

const icu::Normalizer2& nfd() {
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* n = icu::Normalizer2::getNFDInstance(status);
  if (U_FAILURE(status) || !n) throw std::runtime_error("ICU NFD normalizer unavailable");
  return *n;
}

const icu::Normalizer2& nfc() {
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* n = icu::Normalizer2::getNFCInstance(status);
  if (U_FAILURE(status) || !n) throw std::runtime_error("ICU NFC normalizer unavailable");
  return *n;
}

}  // namespace

uint8_t char_class(uint32_t cp, bool unicode14) {
  return class_of(cp, bmp_table(unicode14), unicode14);
}

std::string icu_unicode_version() {
  UVersionInfo v;
  u_getUnicodeVersion(v);
  return std::to_string(v[0]) + "." + std::to_string(v[1]);
}

std::string TokenizerOptions::signature() const {
  std::string s = do_lower_case ? "wordpiece:uncased" : "wordpiece:cased";
  bool strip = strip_accents.value_or(do_lower_case);
  if (strip != do_lower_case) s += strip ? ":strip-accents" : ":keep-accents";
  if (!tokenize_chinese_chars) s += ":no-cjk-split";
  s += ":max" + std::to_string(max_input_chars_per_word);
  if (nfc) s += ":nfc";
  if (keep_special_tokens) s += ":keep-special";
  if (!unicode14) s += ":unicode" + icu_unicode_version();
  return s;
}

// ---- Vocab -------------------------------------------------------------------------------------

Vocab::Vocab(std::vector<std::string> tokens) : tokens_(std::move(tokens)) { index(); }

Vocab::Vocab(const Vocab& other) : tokens_(other.tokens_) { index(); }

Vocab& Vocab::operator=(const Vocab& other) {
  if (this != &other) {
    tokens_ = other.tokens_;
    index();
  }
  return *this;
}

void Vocab::index() {
  ids_.clear();
  cont_.clear();
  max_bytes_ = 0;
  ids_.reserve(tokens_.size() * 2);
  for (size_t i = 0; i < tokens_.size(); ++i) {
    std::string_view t = tokens_[i];
    ids_[t] = static_cast<int32_t>(i);  // a duplicate maps to its last line, like load_vocab
    if (t.size() > 2 && t[0] == '#' && t[1] == '#') cont_[t.substr(2)] = static_cast<int32_t>(i);
    max_bytes_ = std::max(max_bytes_, t.size());
  }
}

Vocab Vocab::from_file(const std::string& path) {
  std::string data = core::read_file(path);
  if (size_t bad = core::find_invalid_utf8(data); bad != std::string::npos) {
    const size_t nl = data.rfind('\n', bad);  // the line holding byte `bad` starts after it
    const size_t start = nl == std::string::npos ? 0 : nl + 1;
    throw InputError(path,
                     1 + static_cast<long>(std::count(data.begin(), data.begin() + bad, '\n')),
                     "invalid UTF-8 at byte " + std::to_string(bad - start) + " of the line");
  }
  std::vector<std::string> tokens;
  // Python text mode: a line ends at \n, \r\n or \r.
  size_t i = 0;
  while (i < data.size()) {
    size_t e = i;
    while (e < data.size() && data[e] != '\n' && data[e] != '\r') ++e;
    tokens.emplace_back(core::py_strip(std::string_view(data).substr(i, e - i)));
    if (e < data.size() && data[e] == '\r' && e + 1 < data.size() && data[e + 1] == '\n') ++e;
    i = e + 1;
  }
  if (tokens.empty()) throw InputError(path, 0, "empty vocabulary");
  return Vocab(std::move(tokens));
}

int32_t Vocab::id(std::string_view token) const {
  auto it = ids_.find(token);
  return it == ids_.end() ? -1 : it->second;
}

int32_t Vocab::continuation_id(std::string_view piece) const {
  auto it = cont_.find(piece);
  return it == cont_.end() ? -1 : it->second;
}

const std::string& Vocab::token(int32_t id) const {
  if (id < 0 || static_cast<size_t>(id) >= tokens_.size())
    throw InputError("token id " + std::to_string(id) + " out of range [0, " +
                     std::to_string(tokens_.size()) + ")");
  return tokens_[static_cast<size_t>(id)];
}

// ---- Tokenizer ---------------------------------------------------------------------------------

WordPieceTokenizer::WordPieceTokenizer(Vocab vocab, TokenizerOptions options)
    : vocab_(std::move(vocab)), options_(std::move(options)) {
  lower_ = options_.do_lower_case;
  strip_ = options_.strip_accents.value_or(options_.do_lower_case);
  unk_id_ = vocab_.id(options_.unk_token);
  if (unk_id_ < 0) throw InputError("vocabulary has no unknown token '" + options_.unk_token + "'");
  if (options_.max_input_chars_per_word == 0)
    throw InputError("max_input_chars_per_word must be positive");
  (void)bmp_table(options_.unicode14);
}

WordPieceTokenizer WordPieceTokenizer::from_file(const std::string& vocab_path,
                                                 TokenizerOptions options) {
  Vocab vocab = Vocab::from_file(vocab_path);
  if (!vocab.contains(options.unk_token))  // here, where the file is known
    throw InputError(vocab_path, 0, "vocabulary has no unknown token '" + options.unk_token + "'");
  return WordPieceTokenizer(std::move(vocab), std::move(options));
}

// Lower-cases / strips the whitespace token buf[word_begin..] in place, then splits it on
// punctuation into spans (BasicTokenizer.tokenize's per-token loop).
void WordPieceTokenizer::finish_word(std::string& buf, size_t word_begin,
                                     std::vector<Span>& spans) const {
  if (buf.size() == word_begin) return;
  const auto& table = bmp_table(options_.unicode14);
  const bool u14 = options_.unicode14;
  if (lower_ || strip_) {
    bool ascii = true;
    for (size_t i = word_begin; i < buf.size(); ++i)
      if (static_cast<unsigned char>(buf[i]) >= 0x80) {
        ascii = false;
        break;
      }
    if (ascii) {
      // ASCII: str.lower() is the ASCII mapping and NFD changes nothing.
      if (lower_)
        for (size_t i = word_begin; i < buf.size(); ++i)
          if (buf[i] >= 'A' && buf[i] <= 'Z') buf[i] = static_cast<char>(buf[i] + 32);
    } else {
      icu::UnicodeString us = icu::UnicodeString::fromUTF8(
          icu::StringPiece(buf.data() + word_begin, static_cast<int32_t>(buf.size() - word_begin)));
      if (lower_) us.toLower(icu::Locale::getRoot());  // full mapping, Final_Sigma in the token
      buf.resize(word_begin);
      if (strip_) {
        UErrorCode status = U_ZERO_ERROR;
        icu::UnicodeString d = nfd().normalize(us, status);
        if (U_FAILURE(status)) throw std::runtime_error("ICU NFD failed");
        for (int32_t i = 0; i < d.length();) {
          UChar32 c = d.char32At(i);
          i += U16_LENGTH(c);
          if (class_of(static_cast<uint32_t>(c), table, u14) & kCharMark) continue;
          core::append_utf8(buf, static_cast<uint32_t>(c));
        }
      } else {
        us.toUTF8String(buf);
      }
      if (buf.size() == word_begin) return;  // only combining marks: the token vanishes
    }
  }
  // _run_split_on_punc
  std::string_view w(buf);
  size_t start = word_begin;
  size_t i = word_begin;
  while (i < w.size()) {
    size_t at = i;
    uint32_t cp;
    unsigned char b = static_cast<unsigned char>(w[i]);
    uint8_t cls;
    if (b < 0x80) {
      ++i;
      cls = table[b];
    } else {
      cp = core::next_code_point(w, i);
      cls = class_of(cp, table, u14);
    }
    if (cls & kCharPunct) {
      if (at > start) spans.push_back({uint32_t(start), uint32_t(at), -1});
      spans.push_back({uint32_t(at), uint32_t(i), -1});
      start = i;
    }
  }
  if (w.size() > start) spans.push_back({uint32_t(start), uint32_t(w.size()), -1});
}

// _clean_text + _tokenize_chinese_chars + whitespace split, appending to buf/spans.
void WordPieceTokenizer::basic_segment(std::string_view text, std::string& buf,
                                       std::vector<Span>& spans) const {
  const auto& table = bmp_table(options_.unicode14);
  const bool u14 = options_.unicode14;
  const bool cjk = options_.tokenize_chinese_chars;
  size_t word_begin = buf.size();
  size_t i = 0;
  const size_t n = text.size();
  while (i < n) {
    unsigned char b = static_cast<unsigned char>(text[i]);
    uint8_t cls;
    size_t at = i;
    if (b < 0x80) {
      cls = table[b];
      ++i;
      if (cls == kCharKeep || cls == kCharPunct) {
        buf.push_back(static_cast<char>(b));
        continue;
      }
    } else {
      uint32_t cp = core::next_code_point(text, i);
      cls = class_of(cp, table, u14);
    }
    if (cls & kCharDelete) continue;
    if (cls & kCharSpace) {
      finish_word(buf, word_begin, spans);
      word_begin = buf.size();
      continue;
    }
    if ((cls & kCharCjk) && cjk) {
      finish_word(buf, word_begin, spans);
      word_begin = buf.size();
      buf.append(text.data() + at, i - at);
      finish_word(buf, word_begin, spans);
      word_begin = buf.size();
      continue;
    }
    buf.append(text.data() + at, i - at);
  }
  finish_word(buf, word_begin, spans);
}

void WordPieceTokenizer::basic_spans(std::string_view text, std::string& buf,
                                     std::vector<Span>& spans) const {
  if (size_t bad = core::find_invalid_utf8(text); bad != std::string::npos)
    throw InputError("invalid UTF-8 at byte " + std::to_string(bad) + " of the text");
  buf.clear();
  spans.clear();
  buf.reserve(text.size() + 16);
  std::string normalized;
  if (options_.nfc) {
    bool ascii = true;
    for (char c : text)
      if (static_cast<unsigned char>(c) >= 0x80) {
        ascii = false;
        break;
      }
    if (!ascii) {
      UErrorCode status = U_ZERO_ERROR;
      icu::UnicodeString us = icu::UnicodeString::fromUTF8(
          icu::StringPiece(text.data(), static_cast<int32_t>(text.size())));
      normalized = to_utf8(nfc().normalize(us, status));
      if (U_FAILURE(status)) throw std::runtime_error("ICU NFC failed");
      text = normalized;
    }
  }
  if (!options_.keep_special_tokens) {
    basic_segment(text, buf, spans);
    return;
  }
  // HF: the added-token trie splits the raw text on special tokens first (earliest match,
  // longest at that position); each stays whole.
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t best = std::string_view::npos;
    const std::string* best_tok = nullptr;
    for (const auto& s : options_.special_tokens) {
      if (s.empty()) continue;
      size_t f = text.find(s, pos);
      if (f == std::string_view::npos) continue;
      if (f < best || (f == best && s.size() > best_tok->size())) {
        best = f;
        best_tok = &s;
      }
    }
    if (!best_tok) {
      basic_segment(text.substr(pos), buf, spans);
      break;
    }
    basic_segment(text.substr(pos, best - pos), buf, spans);
    int32_t id = vocab_.id(*best_tok);
    size_t b = buf.size();
    buf += *best_tok;
    spans.push_back({uint32_t(b), uint32_t(buf.size()), id >= 0 ? id : unk_id_});
    pos = best + best_tok->size();
  }
}

std::vector<std::string> WordPieceTokenizer::basic_tokenize(std::string_view text) const {
  std::string buf;
  std::vector<Span> spans;
  basic_spans(text, buf, spans);
  std::vector<std::string> out;
  out.reserve(spans.size());
  for (const auto& s : spans) out.emplace_back(buf.data() + s.begin, s.end - s.begin);
  return out;
}

// WordpieceTokenizer.tokenize for one basic token: greedy longest-match-first.
void WordPieceTokenizer::wordpiece(std::string_view word, std::vector<int32_t>* ids,
                                   std::vector<std::string>* tokens) const {
  auto emit_unk = [&] {
    if (ids) ids->push_back(unk_id_);
    if (tokens) tokens->push_back(options_.unk_token);
  };
  if (count_code_points(word) > options_.max_input_chars_per_word) {
    emit_unk();
    return;
  }
  // Pieces are collected first: a word with an uncoverable position is one [UNK].
  int32_t local_ids[64];
  uint32_t local_ends[64];
  std::vector<std::pair<int32_t, uint32_t>> many;
  size_t count = 0;
  const size_t max_bytes = vocab_.max_token_bytes();
  size_t start = 0;
  while (start < word.size()) {
    size_t end = std::min(word.size(), start + max_bytes);
    while (end < word.size() && end > start && is_continuation_byte(word[end])) --end;
    int32_t found = -1;
    while (end > start) {
      std::string_view sub = word.substr(start, end - start);
      found = start == 0 ? vocab_.id(sub) : vocab_.continuation_id(sub);
      if (found >= 0) break;
      --end;
      while (end > start && is_continuation_byte(word[end])) --end;
    }
    if (found < 0) {
      emit_unk();
      return;
    }
    if (count < 64) {
      local_ids[count] = found;
      local_ends[count] = static_cast<uint32_t>(end);
    } else {
      if (many.empty())
        for (size_t k = 0; k < 64; ++k) many.emplace_back(local_ids[k], local_ends[k]);
      many.emplace_back(found, static_cast<uint32_t>(end));
    }
    ++count;
    start = end;
  }
  size_t prev = 0;
  for (size_t k = 0; k < count; ++k) {
    int32_t id = k < 64 ? local_ids[k] : many[k].first;
    size_t end = k < 64 ? local_ends[k] : many[k].second;
    if (ids) ids->push_back(id);
    if (tokens) {
      if (k == 0)
        tokens->emplace_back(word.substr(0, end));
      else
        tokens->push_back("##" + std::string(word.substr(prev, end - prev)));
    }
    prev = end;
  }
}

Encoding WordPieceTokenizer::encode(std::string_view text) const {
  std::string buf;
  std::vector<Span> spans;
  basic_spans(text, buf, spans);
  Encoding enc;
  enc.ids.reserve(spans.size() + spans.size() / 4);
  enc.tokens.reserve(spans.size() + spans.size() / 4);
  for (const auto& s : spans) {
    std::string_view w(buf.data() + s.begin, s.end - s.begin);
    if (s.special_id >= 0) {
      enc.ids.push_back(s.special_id);
      enc.tokens.emplace_back(w);
      continue;
    }
    wordpiece(w, &enc.ids, &enc.tokens);
  }
  return enc;
}

void WordPieceTokenizer::encode_ids(std::string_view text, std::vector<int32_t>* ids) const {
  thread_local std::string buf;
  thread_local std::vector<Span> spans;
  basic_spans(text, buf, spans);
  for (const auto& s : spans) {
    if (s.special_id >= 0) {
      ids->push_back(s.special_id);
      continue;
    }
    wordpiece(std::string_view(buf.data() + s.begin, s.end - s.begin), ids, nullptr);
  }
}

std::string WordPieceTokenizer::detokenize(const std::vector<std::string>& tokens,
                                           const DetokenizeOptions& options) const {
  std::vector<std::string> words;
  for (const auto& t : tokens) {
    if (options.skip_special) {
      bool special = false;
      for (const auto& s : options_.special_tokens)
        if (t == s && t != options_.unk_token) special = true;
      if (special) continue;
    }
    // UniLM decode_seq2seq.py `detokenize`: a "##" piece joins the previous word.
    if (options.join_pieces && t.size() > 2 && t[0] == '#' && t[1] == '#' && !words.empty())
      words.back() += t.substr(2);
    else
      words.push_back(t);
  }
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) {
    if (i) out += ' ';
    out += words[i];
  }
  if (options.clean_up_spaces) {
    // HF tokenization_utils_base `clean_up_tokenization`, in its order.
    static const std::pair<const char*, const char*> kRules[] = {
        {" .", "."},     {" ?", "?"},   {" !", "!"},   {" ,", ","},     {" ' ", "'"},
        {" n't", "n't"}, {" 'm", "'m"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}};
    for (const auto& [from, to] : kRules) {
      std::string res;
      size_t flen = std::strlen(from);
      size_t p = 0;
      while (true) {
        size_t f = out.find(from, p);
        if (f == std::string::npos) break;
        res.append(out, p, f - p);
        res += to;
        p = f + flen;
      }
      res.append(out, p, std::string::npos);
      out.swap(res);
    }
  }
  return out;
}

std::string WordPieceTokenizer::decode(const std::vector<int32_t>& ids,
                                       const DetokenizeOptions& options) const {
  std::vector<std::string> tokens;
  tokens.reserve(ids.size());
  for (int32_t id : ids) tokens.push_back(vocab_.token(id));
  return detokenize(tokens, options);
}

}  // namespace unieval::models
