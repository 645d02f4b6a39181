// Follows sacreBLEU (Apache-2.0) and mteval (no licence; behaviour only, no code taken) behaviour;
// no code copied; see THIRD_PARTY_NOTICES.md.
#include "metrics/text/tokenize_intl.h"

#include <unicode/uchar.h>
#include <unicode/ustring.h>

#include <array>
#include <cstdint>
#include <vector>

#include "core/py_string.h"
#include "core/utf8.h"

namespace unieval::metrics::text {

namespace {

// Unicode general-category classes of the intl rules, as bits.
enum : uint8_t { kN = 1, kP = 2, kS = 4, kZ = 8 };

uint8_t classify_icu(char32_t c) {
  int t = u_charType(static_cast<UChar32>(c));
  uint8_t bits = 0;
  if (t == U_DECIMAL_DIGIT_NUMBER || t == U_LETTER_NUMBER || t == U_OTHER_NUMBER) bits |= kN;
  if (t == U_CONNECTOR_PUNCTUATION || t == U_DASH_PUNCTUATION || t == U_START_PUNCTUATION ||
      t == U_END_PUNCTUATION || t == U_INITIAL_PUNCTUATION || t == U_FINAL_PUNCTUATION ||
      t == U_OTHER_PUNCTUATION)
    bits |= kP;
  if (t == U_MATH_SYMBOL || t == U_CURRENCY_SYMBOL || t == U_MODIFIER_SYMBOL || t == U_OTHER_SYMBOL)
    bits |= kS;
  if (t == U_SPACE_SEPARATOR || t == U_LINE_SEPARATOR || t == U_PARAGRAPH_SEPARATOR) bits |= kZ;
  return bits;
}

// ASCII from a table filled by the same ICU calls (most text), the rest from ICU.
const std::array<uint8_t, 128> kAsciiClass = [] {
  std::array<uint8_t, 128> t{};
  for (char32_t a = 0; a < 128; ++a) t[a] = classify_icu(a);
  return t;
}();

inline uint8_t classify(char32_t c) { return c < 128 ? kAsciiClass[c] : classify_icu(c); }

inline bool is_n(char32_t c) { return classify(c) & kN; }
inline bool is_p(char32_t c) { return classify(c) & kP; }
inline bool is_s(char32_t c) { return classify(c) & kS; }
inline bool is_z(char32_t c) { return classify(c) & kZ; }

std::u32string decode(std::string_view s) {
  std::u32string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) out += core::next_code_point(s, i);
  return out;
}

std::string encode(const std::u32string& s) {
  std::string out;
  out.reserve(s.size());
  for (char32_t c : s) core::append_utf8(out, c);
  return out;
}

// The three substitutions of tokenizer_intl.py / tokenization_international.
inline char32_t cp(char c) { return static_cast<unsigned char>(c); }
inline char32_t cp(char32_t c) { return c; }

// Over code points (std::u32string), or over the bytes of pure-ASCII text (std::string), where
// bytes are code points and the result is the same.
template <typename Str, typename In = Str>
Str intl_rules(const In& in) {
  using Ch = typename Str::value_type;
  const Ch sp = static_cast<Ch>(' ');
  const size_t n = in.size();
  // Written through raw pointers into buffers sized to each rule's bound, then trimmed.
  Str a(n * 2 + 1, sp);  // rule 1 at most doubles the text
  Ch* w = a.data();
  for (size_t i = 0; i < n;) {  // (\P{N})(\p{P}) -> "\1 \2 "
    if (i + 1 < n && !is_n(cp(in[i])) && is_p(cp(in[i + 1]))) {
      *w++ = in[i];
      *w++ = sp;
      *w++ = in[i + 1];
      *w++ = sp;
      i += 2;
    } else {
      *w++ = in[i++];
    }
  }
  const size_t na = static_cast<size_t>(w - a.data());
  Str b(na * 2 + 1, sp);  // rule 2 at most doubles it
  w = b.data();
  for (size_t i = 0; i < na;) {  // (\p{P})(\P{N}) -> " \1 \2"
    if (i + 1 < na && is_p(cp(a[i])) && !is_n(cp(a[i + 1]))) {
      *w++ = sp;
      *w++ = a[i];
      *w++ = sp;
      *w++ = a[i + 1];
      i += 2;
    } else {
      *w++ = a[i++];
    }
  }
  const size_t nb = static_cast<size_t>(w - b.data());
  a.resize(nb * 3 + 1);  // rule 3 at most triples it
  w = a.data();
  for (size_t i = 0; i < nb; ++i) {  // (\p{S}) -> " \1 "
    const Ch c = b[i];
    if (is_s(cp(c))) {
      *w++ = sp;
      *w++ = c;
      *w++ = sp;
    } else {
      *w++ = c;
    }
  }
  a.resize(static_cast<size_t>(w - a.data()));
  return a;
}

}  // namespace

std::string tokenize_intl(std::string_view line) {
  bool ascii = true;
  for (char c : line) ascii &= static_cast<unsigned char>(c) < 0x80;
  if (ascii) return core::join_split_ascii(intl_rules<std::string>(line));
  return core::join_py_split(encode(intl_rules<std::u32string>(decode(line))));
}

std::string mteval_tokenize_intl(std::string_view text, bool preserve_case) {
  std::u32string s = decode(text);
  core::py_replace_in(s, U"<skipped>", U"");
  for (char32_t& c : s)
    if (u_charType(static_cast<UChar32>(c)) == U_LINE_SEPARATOR) c = U' ';
  core::py_replace_in(s, U"&quot;", U"\"");
  core::py_replace_in(s, U"&amp;", U"&");
  core::py_replace_in(s, U"&lt;", U"<");
  core::py_replace_in(s, U"&gt;", U">");
  core::py_replace_in(s, U"&apos;", U"'");
  if (!preserve_case) {
    // Perl lc(): full lowercase mapping per character, without Python/ICU's final-sigma context.
    std::u32string low;
    low.reserve(s.size());
    for (char32_t c : s) {
      UChar src[2];
      int32_t n = 0;
      U16_APPEND_UNSAFE(src, n, static_cast<UChar32>(c));
      UChar dst[8];
      UErrorCode err = U_ZERO_ERROR;
      int32_t m = u_strToLower(dst, 8, src, n, "", &err);
      if (U_FAILURE(err) || m > 8) {
        low += c;
        continue;
      }
      for (int32_t k = 0; k < m;) {
        UChar32 cp;
        U16_NEXT(dst, k, m, cp);
        low += static_cast<char32_t>(cp);
      }
    }
    s.swap(low);
  }
  s = intl_rules<std::u32string>(s);
  std::u32string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {  // s/\p{Z}+/ /g
    if (is_z(s[i])) {
      out += U' ';
      while (i < s.size() && is_z(s[i])) ++i;
    } else {
      out += s[i++];
    }
  }
  size_t b = 0, e = out.size();
  while (b < e && is_z(out[b])) ++b;      // s/^\p{Z}+//
  while (e > b && is_z(out[e - 1])) --e;  // s/\p{Z}+$//
  return encode(out.substr(b, e - b));
}

}  // namespace unieval::metrics::text
