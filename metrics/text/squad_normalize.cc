// Follows SQuAD (no licence header) behaviour only; no code taken; see THIRD_PARTY_NOTICES.md.
#include "metrics/text/squad_normalize.h"

#include <unicode/locid.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>

#include <cstring>

#include "core/py_string.h"
#include "core/utf8.h"

namespace unieval::metrics::text {

namespace {

// string.punctuation of Python: !"#$%&'()*+,-./:;<=>?@[\]^_`{|}~
bool is_ascii_punct(char32_t c) {
  return (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) ||
         (c >= 0x7B && c <= 0x7E);
}

// Python re's \w on str: str.isalnum() or '_' (isalpha: categories L*; isnumeric/isdigit/
// isdecimal: a Numeric_Type).
bool is_word_char(char32_t c) {
  if (c < 0x80) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  }
  UChar32 u = static_cast<UChar32>(c);
  if (u_isalpha(u)) return true;
  return u_getIntPropertyValue(u, UCHAR_NUMERIC_TYPE) != U_NT_NONE;
}

// ASCII byte tables: lower[c] is c lowercased, keep[c] is 0 for string.punctuation (deleted);
// cls[c] is what steps 3-4 need to know of a byte.
enum : uint8_t { kOther = 0, kSpace = 1, kWord = 2 };
struct AsciiTables {
  char lower[128];
  uint8_t keep[128];
  uint8_t cls[128];
  uint8_t other[128];  // kept and neither \w nor whitespace (control characters)
  AsciiTables() {
    for (int c = 0; c < 128; ++c) {
      char32_t u = static_cast<char32_t>(c);
      lower[c] = static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
      keep[c] = is_ascii_punct(u) ? 0 : 1;
      cls[c] = (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) ? kSpace
               : is_word_char(u)                                    ? kWord
                                                                    : kOther;
      other[c] = keep[c] && cls[c] == kOther;
    }
  }
};
const AsciiTables kAscii;

bool is_article(const char* r, size_t len) {
  return (len == 1 && r[0] == 'a') || (len == 2 && r[0] == 'a' && r[1] == 'n') ||
         (len == 3 && r[0] == 't' && r[1] == 'h' && r[2] == 'e');
}

// The common case, ASCII text of \w characters, whitespace and punctuation only (anything else,
// non-ASCII or a control character, takes the general code-point path), in two tight passes:
// steps 1-2 branch-free (each byte written lowered, the write position advanced unless it is
// punctuation); then, every byte left being \w or whitespace, the tokens are the runs between
// whitespace, each one whole \w run, so an article is a whole token (step 3) and the others are
// joined by single spaces (step 4), in place. toks, when given, receives the tokens (views of
// out). False (out unspecified) when the text is not of that kind.
bool normalize_plain_ascii(std::string_view s, std::string& out,
                           std::vector<std::string_view>* toks) {
  out.resize(s.size());
  char* b = out.data();
  size_t m = 0;
  unsigned high = 0, other = 0;
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    high |= c;
    c &= 0x7F;
    b[m] = kAscii.lower[c];
    m += kAscii.keep[c];
    other |= kAscii.other[c];
  }
  if ((high & 0x80) || other) return false;
  size_t w = 0, i = 0;
  while (i < m) {
    while (i < m && kAscii.cls[static_cast<unsigned char>(b[i])] == kSpace) ++i;
    size_t j = i;
    while (j < m && kAscii.cls[static_cast<unsigned char>(b[j])] != kSpace) ++j;
    size_t len = j - i;
    if (len && !is_article(b + i, len)) {
      if (w) b[w++] = ' ';
      std::memmove(b + w, b + i, len);  // w <= i
      if (toks) toks->emplace_back(b + w, len);
      w += len;
    }
    i = j;
  }
  out.resize(w);  // shrinks: the views stay valid
  return true;
}

void lower_no_punct(std::string_view s, std::u32string& out) {
  out.clear();
  icu::UnicodeString u =
      icu::UnicodeString::fromUTF8(icu::StringPiece(s.data(), static_cast<int32_t>(s.size())));
  u.toLower(icu::Locale::getRoot());
  out.reserve(u.length());
  for (int32_t i = 0; i < u.length(); i = u.moveIndex32(i, 1)) {
    char32_t c = static_cast<char32_t>(u.char32At(i));
    if (!is_ascii_punct(c)) out.push_back(c);
  }
}

inline char32_t cp_at(const std::u32string& s, size_t i) { return s[i]; }
inline void put(std::string& out, const std::u32string& s, size_t i) {
  core::append_utf8(out, s[i]);
}

template <class Seq>
bool is_article(const Seq& s, size_t b, size_t e) {
  size_t n = e - b;
  if (n == 1) return cp_at(s, b) == U'a';
  if (n == 2) return cp_at(s, b) == U'a' && cp_at(s, b + 1) == U'n';
  if (n == 3) return cp_at(s, b) == U't' && cp_at(s, b + 1) == U'h' && cp_at(s, b + 2) == U'e';
  return false;
}

// Step 3: whole \w-runs equal to a/an/the become a space.  Step 4: whitespace collapse.
// Both are done in one pass: a run of non-space code points is emitted as a token unless it
// is an article word run; spaces (and removed articles) separate tokens.
template <class Seq>
void articles_and_spaces(const Seq& cps, std::string& out) {
  out.clear();
  bool need_space = false;  // a token was written and a separator has been seen since
  bool any = false;
  size_t i = 0, n = cps.size();
  while (i < n) {
    char32_t c = cp_at(cps, i);
    if (core::is_py_space(c)) {
      need_space = any;
      ++i;
      continue;
    }
    if (is_word_char(c)) {
      size_t j = i;
      while (j < n && is_word_char(cp_at(cps, j))) ++j;
      if (is_article(cps, i, j)) {
        need_space = any;  // replaced by ' '
        i = j;
        continue;
      }
      if (need_space) out.push_back(' ');
      need_space = false;
      for (size_t k = i; k < j; ++k) put(out, cps, k);
      any = true;
      i = j;
      continue;
    }
    // A non-word, non-space code point (e.g. Unicode punctuation): part of the current token.
    if (need_space) out.push_back(' ');
    need_space = false;
    put(out, cps, i);
    any = true;
    ++i;
  }
}

}  // namespace

void squad_normalize_answer_into(std::string_view s, std::string& out) {
  if (!normalize_plain_ascii(s, out, nullptr)) squad_normalize_answer_general(s, out);
}

void squad_normalize_answer_general(std::string_view s, std::string& out) {
  thread_local std::u32string cps;
  lower_no_punct(s, cps);
  articles_and_spaces(cps, out);
}

std::string squad_normalize_answer(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  squad_normalize_answer_into(s, out);
  return out;
}

void NormalizedAnswer::set(std::string_view s) {
  toks.clear();
  if (normalize_plain_ascii(s, norm, &toks)) return;  // (it adds no token when it fails)
  squad_normalize_answer_into(s, norm);
  // The normalised string has single ASCII spaces between tokens and no other whitespace.
  const char* d = norm.data();
  size_t n = norm.size(), b = 0;
  for (size_t i = 0; i < n; ++i) {
    if (d[i] == ' ') {
      toks.emplace_back(d + b, i - b);
      b = i + 1;
    }
  }
  if (n) toks.emplace_back(d + b, n - b);
}

std::vector<std::string> squad_answer_tokens(std::string_view s) {
  return squad_tokens_of_normalized(squad_normalize_answer(s));
}

std::vector<std::string> squad_tokens_of_normalized(const std::string& norm) {
  std::vector<std::string> toks;
  // The normalised string has single ASCII spaces between tokens and no other whitespace.
  size_t b = 0;
  while (b < norm.size()) {
    size_t e = norm.find(' ', b);
    if (e == std::string::npos) e = norm.size();
    toks.emplace_back(norm, b, e - b);
    b = e + 1;
  }
  return toks;
}

}  // namespace unieval::metrics::text
