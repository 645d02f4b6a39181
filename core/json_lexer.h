#pragma once
// Follows CPython (PSF-2.0) behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
// The lexical steps of JSON as Python's json module takes them, shared by the two readers of
// core: core::JsonDocument's parser (json_reader.cc), which builds nodes and names every
// problem, and core::JsonCursor (json_cursor.h), which builds nothing and only says "refused".
// Sharing them is what makes the two accept exactly the same text. Inline, so that a cursor's
// loop keeps its position in a register.
//
// Each checking step takes fail(problem), a callable that must throw: the parser's throws an
// InputError with the problem and the line, the cursor's throws JsonCursor::Refused.
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <system_error>

namespace unieval::core::detail {

constexpr int kMaxDepth = 1000;  // containers nested deeper are refused ("nesting too deep")

// A position in JSON text.
struct Lexer {
  const char* s = nullptr;
  size_t n = 0;
  size_t p = 0;
  long line = 1;

  void skip_ws() {
    while (p < n) {
      char c = s[p];
      if (c == ' ' || c == '\t' || c == '\r') {
        ++p;
      } else if (c == '\n') {
        ++p;
        ++line;
      } else {
        break;
      }
    }
  }
  // Consumes `word` when the text continues with it.
  bool literal(const char* word) {
    size_t len = std::char_traits<char>::length(word);
    if (n - p >= len && std::char_traits<char>::compare(s + p, word, len) == 0) {
      p += len;
      return true;
    }
    return false;
  }
};

inline std::string printable(char c) {
  if (static_cast<unsigned char>(c) < 0x20) return "\\x" + std::to_string(static_cast<int>(c));
  return std::string(1, c);
}

// The first '"', '\\' or control character (< 0x20) at or after p (n when none), 16 bytes at a
// time with SSE2, else 8 at a time (SWAR).
inline size_t find_string_stop(const char* s, size_t p, size_t n) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\'), ctl = _mm_set1_epi8(0x1F);
  while (p + 16 <= n) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + p));
    __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bslash)),
                               _mm_cmpeq_epi8(_mm_min_epu8(v, ctl), v));  // unsigned v <= 0x1F
    int mask = _mm_movemask_epi8(hit);
    if (mask) return p + static_cast<size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
    p += 16;
  }
#else
  constexpr uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;
  while (p + 8 <= n) {
    uint64_t w;
    std::memcpy(&w, s + p, 8);
    uint64_t q = w ^ (kOnes * '"'), b = w ^ (kOnes * '\\');
    uint64_t hit = ((q - kOnes) & ~q) | ((b - kOnes) & ~b) | ((w - kOnes * 0x20) & ~w);
    if (hit & kHigh) break;
    p += 8;
  }
#endif
  while (p < n) {
    unsigned char c = static_cast<unsigned char>(s[p]);
    if (c == '"' || c == '\\' || c < 0x20) break;
    ++p;
  }
  return p;
}

inline size_t utf8_length(uint32_t cp) {
  return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
}

inline void put_utf8(char* out, size_t& w, uint32_t cp) {
  if (cp < 0x80) {
    out[w++] = static_cast<char>(cp);
  } else if (cp < 0x800) {
    out[w++] = static_cast<char>(0xC0 | (cp >> 6));
    out[w++] = static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out[w++] = static_cast<char>(0xE0 | (cp >> 12));
    out[w++] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out[w++] = static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out[w++] = static_cast<char>(0xF0 | (cp >> 18));
    out[w++] = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out[w++] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out[w++] = static_cast<char>(0x80 | (cp & 0x3F));
  }
}

template <class Fail>
uint32_t hex4(Lexer& x, Fail&& fail) {
  if (x.n - x.p < 4) fail("truncated \\u escape");
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) {
    char c = x.s[x.p++];
    v <<= 4;
    if (c >= '0' && c <= '9')
      v |= static_cast<uint32_t>(c - '0');
    else if (c >= 'a' && c <= 'f')
      v |= static_cast<uint32_t>(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F')
      v |= static_cast<uint32_t>(c - 'A' + 10);
    else
      fail("invalid \\u escape");
  }
  return v;
}

// The rest of a string after its first stop (find_string_stop): escapes and the closing quote,
// from x.p to just after the closing quote, checked as Python's json does. With kDecode the
// decoded bytes are written from out[w] on (in place: an escape sequence is never shorter than
// what it decodes to, so the write position never passes the read position); without, the text
// is only read. Returns the write position (the decoded length is it minus the body's start);
// *escaped is set when an escape is met. Out of line from string_body: strings without
// escapes, nearly all of them, never get here.
template <bool kDecode, class Fail>
size_t string_tail(Lexer& x, char* out, size_t w, bool* escaped, Fail&& fail) {
  while (true) {
    if (x.p >= x.n) fail("unterminated string");
    unsigned char c = static_cast<unsigned char>(x.s[x.p]);
    if (c == '"') {
      ++x.p;
      return w;
    }
    if (c < 0x20)
      fail("control character inside a string (Python json: 'Invalid control character')");
    if (c != '\\') {
      if constexpr (kDecode) out[w] = static_cast<char>(c);
      ++w;
      ++x.p;
      continue;
    }
    *escaped = true;
    ++x.p;
    if (x.p >= x.n) fail("unterminated string");
    char e = x.s[x.p++];
    char plain = 0;
    switch (e) {
      case '"':
        plain = '"';
        break;
      case '\\':
        plain = '\\';
        break;
      case '/':
        plain = '/';
        break;
      case 'b':
        plain = '\b';
        break;
      case 'f':
        plain = '\f';
        break;
      case 'n':
        plain = '\n';
        break;
      case 'r':
        plain = '\r';
        break;
      case 't':
        plain = '\t';
        break;
      case 'u': {
        uint32_t cp = hex4(x, fail);
        if (cp >= 0xD800 && cp < 0xDC00 && x.n - x.p >= 6 && x.s[x.p] == '\\' &&
            x.s[x.p + 1] == 'u') {
          size_t save = x.p;
          x.p += 2;
          uint32_t lo = hex4(x, fail);
          if (lo >= 0xDC00 && lo < 0xE000) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          } else {
            x.p = save;  // lone high surrogate, kept as is (Python does the same)
          }
        }
        if constexpr (kDecode)
          put_utf8(out, w, cp);
        else
          w += utf8_length(cp);
        continue;
      }
      default:
        fail(std::string("invalid escape '\\") + printable(e) + "'");
    }
    if constexpr (kDecode) out[w] = plain;
    ++w;
  }
}

// A string's body, from just after its opening quote to just after its closing quote; returns
// the length of its decoded bytes (string_tail says how they are checked and written).
template <bool kDecode, class Fail>
inline size_t string_body(Lexer& x, char* out, bool* escaped, Fail&& fail) {
  size_t start = x.p;
  size_t stop = find_string_stop(x.s, x.p, x.n);
  if (stop < x.n && x.s[stop] == '"') {  // the common case: no escape
    x.p = stop + 1;
    return stop - start;
  }
  x.p = stop;
  return string_tail<kDecode>(x, out, stop, escaped, fail) - start;
}

enum class NumberKind { kInteger, kFloat, kMinusInfinity };

// A number at x.p (its first character '-' or a digit), checked with Python json's grammar
// (plus -Infinity); x.p ends past it.
template <class Fail>
NumberKind scan_number(Lexer& x, Fail&& fail) {
  if (x.s[x.p] == '-') {
    ++x.p;
    if (x.literal("Infinity")) return NumberKind::kMinusInfinity;
  }
  auto digit = [&x](size_t i) { return i < x.n && x.s[i] >= '0' && x.s[i] <= '9'; };
  if (!digit(x.p)) fail("invalid number");
  if (x.s[x.p] == '0') {
    ++x.p;
  } else {
    while (digit(x.p)) ++x.p;
  }
  NumberKind kind = NumberKind::kInteger;
  if (x.p < x.n && x.s[x.p] == '.') {
    kind = NumberKind::kFloat;
    ++x.p;
    if (!digit(x.p)) fail("invalid number (no digit after '.')");
    while (digit(x.p)) ++x.p;
  }
  if (x.p < x.n && (x.s[x.p] == 'e' || x.s[x.p] == 'E')) {
    kind = NumberKind::kFloat;
    ++x.p;
    if (x.p < x.n && (x.s[x.p] == '+' || x.s[x.p] == '-')) ++x.p;
    if (!digit(x.p)) fail("invalid number (no digit in exponent)");
    while (digit(x.p)) ++x.p;
  }
  return kind;
}

// The value of a number scan_number accepted (text s[start, end), not -Infinity), as Python's
// json gives it, in a double: integers below 10^15 exactly from their digits (SQuAD's
// answer_start, CoQA's turn ids: no general conversion needed), others correctly rounded
// (std::from_chars, like float()), out of range to +-inf or +-0 (float('1e999') = inf).
inline double number_value(const char* s, size_t start, size_t end, NumberKind kind) {
  bool negative = s[start] == '-';
  size_t digits = end - start - (negative ? 1 : 0);
  if (kind == NumberKind::kInteger && digits <= 15) {
    uint64_t u = 0;
    for (size_t i = end - digits; i < end; ++i) u = u * 10 + static_cast<uint64_t>(s[i] - '0');
    double v = static_cast<double>(u);
    return negative ? -v : v;
  }
  double v = 0;
  auto res = std::from_chars(s + start, s + end, v);
  if (res.ec == std::errc::result_out_of_range)
    v = (negative ? -1.0 : 1.0) *
        (std::strtod(std::string(s + start, end - start).c_str(), nullptr) == 0 ? 0.0 : HUGE_VAL);
  return v;
}

}  // namespace unieval::core::detail
