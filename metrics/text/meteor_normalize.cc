// Part of unieval_meteor, the LGPL-2.1 component of unieval (metrics/CMakeLists.txt).
// SPDX-License-Identifier: LGPL-2.1-only
// Copyright 2026 the unieval authors. This file is a C++ port of the text normaliser of METEOR 1.5
// (cmu-mtlab/meteor; Michael Denkowski, Alon Lavie, Carnegie Mellon University), itself a Java port
// of the Moses tokenizer (moses-smt/mosesdecoder); both are licensed under the LGPL-2.1, so this
// file is licensed under the GNU Lesser General Public License version 2.1 (LICENSES/LGPL-2.1.txt),
// not under Apache-2.0 like the rest of unieval. It is distributed WITHOUT ANY WARRANTY; without
// even the implied warranty of MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE; see the
// licence.
//
// Follows the structure of METEOR 1.5's Normalizer.normalizeLine (LGPL-2.1; English branch), a Java
// port of the Moses (LGPL-2.1) tokenizer, ported by reading its Java source; see
// THIRD_PARTY_NOTICES.md.
// Works on code points; every regex of the original is a fixed-width pattern, so each replaceAll is
// a left-to-right scan that skips past what it replaced, exactly like Java's Matcher.replaceAll.
#include "metrics/text/meteor_normalize.h"

#include <unicode/locid.h>
#include <unicode/unistr.h>

#include <cstdint>

#include "core/error.h"
#include "core/io.h"
#include "core/utf8.h"

namespace unieval::metrics::text {

namespace {

using U32 = std::u32string;

bool is_alpha(char32_t c) {
  if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')) return true;
  if (c < 0xC0) return false;
  // Normalizer.alpha: ŠŽšžŸ À-Ö Ø-ö ø-ž (Latin) and Ѐ-ӿ Ԁ-ԧ Ꙁ-ꙮ ꙾-ꚗ ᴀ-ᵿ (Cyrillic).
  return c == 0x160 || c == 0x17D || c == 0x161 || c == 0x17E || c == 0x178 ||
         (c >= 0xC0 && c <= 0xD6) || (c >= 0xD8 && c <= 0xF6) || (c >= 0xF8 && c <= 0x17E) ||
         (c >= 0x400 && c <= 0x4FF) || (c >= 0x500 && c <= 0x527) || (c >= 0xA640 && c <= 0xA66E) ||
         (c >= 0xA67E && c <= 0xA697) || (c >= 0x1D00 && c <= 0x1D7F);
}
bool is_digit(char32_t c) { return c >= '0' && c <= '9'; }  // Java \p{Digit}: ASCII only
bool is_alnum(char32_t c) { return is_digit(c) || is_alpha(c); }
bool is_java_space(char32_t c) {  // Java regex \s (ASCII)
  return c == ' ' || c == '\t' || c == '\n' || c == 0x0B || c == '\f' || c == '\r';
}
bool is_tokenizer_delim(char32_t c) {  // StringTokenizer default delimiters
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}
// Normalizer.r_white: the Unicode space separators (Zs other than U+0020) collapse to a space.
bool is_unicode_white(char32_t c) {
  return c == ' ' || c == 0xA0 || c == 0x1680 || c == 0x180E || (c >= 0x2000 && c <= 0x200A) ||
         c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

U32 to_u32(std::string_view s) {
  U32 out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    auto b = static_cast<unsigned char>(s[i]);
    char32_t cp;
    size_t len;
    if (b < 0x80) {
      cp = b;
      len = 1;
    } else if ((b >> 5) == 6) {
      cp = b & 0x1F;
      len = 2;
    } else if ((b >> 4) == 14) {
      cp = b & 0x0F;
      len = 3;
    } else {
      cp = b & 0x07;
      len = 4;
    }
    if (i + len > s.size()) len = s.size() - i;
    for (size_t k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    out.push_back(cp);
    i += len;
  }
  return out;
}

std::string to_u8(const U32& s) {
  std::string out;
  out.reserve(s.size());
  for (char32_t c : s) core::append_utf8(out, c);
  return out;
}

U32 lit(const char* s) {
  U32 out;
  for (; *s; ++s) out.push_back(static_cast<unsigned char>(*s));
  return out;
}

bool contains(const U32& s, const U32& what) { return s.find(what) != U32::npos; }

// Java String.replace(CharSequence, CharSequence).
U32 replace_literal(const U32& s, const U32& from, const U32& to) {
  U32 out;
  out.reserve(s.size() + 8);
  size_t i = 0;
  while (true) {
    size_t j = s.find(from, i);
    if (j == U32::npos) break;
    out.append(s, i, j - i);
    out += to;
    i = j + from.size();
  }
  out.append(s, i, U32::npos);
  return out;
}

// replaceAll of "(A)[mid](B)" by "$1" + between + "$2".
template <class PredA, class PredB>
U32 replace3(const U32& s, PredA a, char32_t mid, PredB b, const U32& between) {
  if (s.find(mid) == U32::npos) return s;
  U32 out;
  out.reserve(s.size() + 16);
  size_t n = s.size(), i = 0;
  while (i < n) {
    if (i + 2 < n && s[i + 1] == mid && a(s[i]) && b(s[i + 2])) {
      out.push_back(s[i]);
      out += between;
      out.push_back(s[i + 2]);
      i += 3;
    } else {
      out.push_back(s[i]);
      ++i;
    }
  }
  return out;
}

}  // namespace

NonbreakingPrefixes NonbreakingPrefixes::parse(std::string_view text) {
  NonbreakingPrefixes out;
  for (const std::string& line : core::split_lines(text, "nonbreaking prefixes", {false, true})) {
    std::vector<std::string> tok = java_tokenize(line);
    if (tok.empty() || tok[0].rfind('#', 0) == 0) continue;
    int type = kAny;
    if (tok.size() > 1 && tok[1] == "#NUMERIC_ONLY#") type = kNumericOnly;
    out.type[tok[0]] = type;  // Hashtable.put: a later line overrides
  }
  return out;
}

NonbreakingPrefixes NonbreakingPrefixes::load(const std::string& path) {
  return parse(core::read_file(path));
}

namespace {

// The steps of Normalizer.normalizeLine (English), in its order; each rewrites w in place.

// r_sep_other: isolate every character that is not a special case.
void separate_other(U32& w) {
  U32 out;
  out.reserve(w.size() * 2);
  for (char32_t c : w) {
    bool keep = is_alnum(c) || is_java_space(c) || c == '.' || c == '\'' || c == '`' || c == ',' ||
                c == '-' || c == 0x2018 || c == 0x2019;
    if (keep) {
      out.push_back(c);
    } else {
      out.push_back(' ');
      out.push_back(c);
      out.push_back(' ');
    }
  }
  w.swap(out);
}

const U32& dot_multi_dot() {
  static const U32 k = lit("DOTMULTI.");
  return k;
}
const U32& dot_dot_multi() {
  static const U32 k = lit("DOTDOTMULTI");
  return k;
}

// r_multi_dot and r_multi_dot2: runs of dots are escaped as DOTMULTI / DOTDOTMULTI words.
void escape_multi_dots(U32& w) {
  // r_multi_dot: "\.([\.]+)" -> " DOTMULTI$1"
  const U32& kDotMultiDot = dot_multi_dot();
  const U32& kDotDotMulti = dot_dot_multi();
  if (w.find(lit("..")) != U32::npos) {
    U32 out;
    size_t i = 0, n = w.size();
    while (i < n) {
      if (w[i] == '.' && i + 1 < n && w[i + 1] == '.') {
        size_t j = i + 1;
        while (j < n && w[j] == '.') ++j;
        out += lit(" DOTMULTI");
        out.append(w, i + 1, j - i - 1);
        i = j;
      } else {
        out.push_back(w[i++]);
      }
    }
    w.swap(out);
  }
  while (contains(w, kDotMultiDot)) {
    // r_multi_dot2: "DOTMULTI\.([^\.])" -> "DOTDOTMULTI $1"
    U32 out;
    size_t i = 0, n = w.size();
    while (i < n) {
      if (i + 9 < n && w.compare(i, 9, kDotMultiDot) == 0 && w[i + 9] != '.') {
        out += kDotDotMulti;
        out.push_back(' ');
        out.push_back(w[i + 9]);
        i += 10;
      } else {
        out.push_back(w[i++]);
      }
    }
    w = replace_literal(out, kDotMultiDot, kDotDotMulti);
  }
}

// Commas, except within numbers.
void space_commas(U32& w) {
  static const U32 kSpacedComma = lit(" , ");
  auto non_digit = [](char32_t c) { return !is_digit(c); };
  auto digit = [](char32_t c) { return is_digit(c); };
  if (w.find(U',') != U32::npos) {
    w = replace3(w, non_digit, ',', non_digit, kSpacedComma);
    w = replace3(w, digit, ',', non_digit, kSpacedComma);
    w = replace3(w, non_digit, ',', digit, kSpacedComma);
  }
}

// Quotes: ` ‘ ’ -> ' ; then “ ” '' -> " (spaced).
void normalise_quotes(U32& w) {
  bool quotes = false;
  for (auto& c : w) {
    if (c == '`' || c == 0x2018 || c == 0x2019) c = '\'';
    quotes |= c == '\'' || c == 0x201C || c == 0x201D;
  }
  if (quotes) {
    U32 out;
    out.reserve(w.size() + 8);
    size_t i = 0, n = w.size();
    while (i < n) {
      if (w[i] == 0x201C || w[i] == 0x201D) {
        out += lit(" \" ");
        ++i;
      } else if (w[i] == '\'' && i + 1 < n && w[i + 1] == '\'') {
        out += lit(" \" ");
        i += 2;
      } else {
        out.push_back(w[i++]);
      }
    }
    w.swap(out);
  }
}

// Dashes, then r_rm_dash: "([alnum\.])[\-]([alnum])" -> "$1 $2"
void split_dashes(U32& w) {
  for (auto& c : w)
    if (c == 0x2013) c = '-';
  if (w.find(lit("--")) != U32::npos) w = replace_literal(w, lit("--"), lit("-"));
  static const U32 kSpace = lit(" ");
  w = replace3(
      w, [](char32_t c) { return is_alnum(c) || c == '.'; }, '-',
      [](char32_t c) { return is_alnum(c); }, kSpace);
}

// English apostrophes (r_cont_en .. r_cont_en5).
void split_apostrophes(U32& w) {
  if (w.find(U'\'') == U32::npos) return;
  static const U32 kSpacedQuote = lit(" ' "), kSpaceQuote = lit(" '");
  auto digit = [](char32_t c) { return is_digit(c); };
  auto alpha = [](char32_t c) { return is_alpha(c); };
  auto non_alpha = [](char32_t c) { return !is_alpha(c); };
  w = replace3(w, non_alpha, '\'', non_alpha, kSpacedQuote);
  w = replace3(
      w, [](char32_t c) { return !is_alpha(c) && !is_digit(c); }, '\'', alpha, kSpacedQuote);
  w = replace3(w, alpha, '\'', non_alpha, kSpacedQuote);
  // "$1 '$2": the quote moves to the right part (don't -> don 't, 1990's -> 1990 's).
  w = replace3(w, alpha, '\'', alpha, kSpaceQuote);
  w = replace3(
      w, digit, '\'', [](char32_t c) { return c == 's'; }, kSpaceQuote);
}

// Split into tokens, then rebuild, breaking final dots unless non-breaking.
void break_final_dots(U32& w, const NonbreakingPrefixes& prefixes) {
  std::vector<U32> words;
  {
    size_t i = 0, n = w.size();
    while (i < n) {
      while (i < n && is_tokenizer_delim(w[i])) ++i;
      size_t j = i;
      while (j < n && !is_tokenizer_delim(w[j])) ++j;
      if (j > i) words.emplace_back(w, i, j - i);
      i = j;
    }
  }
  U32 sb;
  sb.reserve(w.size() + 8);
  for (size_t i = 0; i < words.size(); ++i) {
    const U32& word = words[i];
    if (word.size() > 1 && word.back() == '.') {
      U32 pre = word.substr(0, word.size() - 1);
      auto it = prefixes.type.find(to_u8(pre));
      int type = it == prefixes.type.end() ? 0 : it->second;
      bool pre_has_dot = pre.find(U'.') != U32::npos;
      bool pre_has_alpha = false;
      for (char32_t c : pre) pre_has_alpha |= is_alpha(c);
      bool next_lower = i + 1 < words.size() && words[i + 1][0] >= 'a' && words[i + 1][0] <= 'z';
      bool next_digit = i + 1 < words.size() && is_digit(words[i + 1][0]);
      if (pre_has_dot && pre_has_alpha) {
        for (char32_t c : word)
          if (c != '.') sb.push_back(c);
      } else if (type == NonbreakingPrefixes::kAny || next_lower) {
        sb += word;
      } else if (type == NonbreakingPrefixes::kNumericOnly && next_digit) {
        sb += word;
      } else {
        sb += pre;
        sb += lit(" .");
      }
    } else {
      sb += word;
    }
    sb.push_back(' ');
  }
  w.swap(sb);
}

// Unescape multiple dots.
void unescape_multi_dots(U32& w) {
  static const U32 kDotMulti = lit("DOTMULTI"), kDot = lit(".");
  while (contains(w, dot_dot_multi())) w = replace_literal(w, dot_dot_multi(), dot_multi_dot());
  if (contains(w, kDotMulti)) w = replace_literal(w, kDotMulti, kDot);
}

// r_white then trim().
std::string collapse_white(const U32& w) {
  U32 out;
  out.reserve(w.size());
  for (size_t i = 0; i < w.size();) {
    if (is_unicode_white(w[i])) {
      while (i < w.size() && is_unicode_white(w[i])) ++i;
      out.push_back(' ');
    } else {
      out.push_back(w[i++]);
    }
  }
  size_t b = 0, e = out.size();
  while (b < e && out[b] <= 0x20) ++b;
  while (e > b && out[e - 1] <= 0x20) --e;
  return to_u8(out.substr(b, e - b));
}

}  // namespace

std::string meteor_normalize(std::string_view line, const NonbreakingPrefixes& prefixes,
                             bool keep_punctuation) {
  U32 w;
  w.reserve(line.size() + 16);
  w.push_back(' ');
  w += to_u32(line);
  w.push_back(' ');
  separate_other(w);
  escape_multi_dots(w);
  space_commas(w);
  normalise_quotes(w);
  split_dashes(w);
  split_apostrophes(w);
  break_final_dots(w, prefixes);
  unescape_multi_dots(w);
  if (!keep_punctuation)
    for (auto& c : w)
      if (!is_alnum(c)) c = ' ';
  return collapse_white(w);
}

std::string java_lowercase(std::string_view text) {
  bool ascii = true;
  for (char c : text) ascii &= static_cast<unsigned char>(c) < 0x80;
  if (ascii) {
    std::string out(text);
    for (auto& c : out)
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return out;
  }
  icu::UnicodeString u = icu::UnicodeString::fromUTF8(
      icu::StringPiece(text.data(), static_cast<int32_t>(text.size())));
  u.toLower(icu::Locale::getEnglish());
  std::string out;
  u.toUTF8String(out);
  return out;
}

std::vector<std::string> java_tokenize(std::string_view text) {
  std::vector<std::string> out;
  size_t i = 0, n = text.size();
  auto delim = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; };
  while (i < n) {
    while (i < n && delim(text[i])) ++i;
    size_t j = i;
    while (j < n && !delim(text[j])) ++j;
    if (j > i) out.emplace_back(text.substr(i, j - i));
    i = j;
  }
  return out;
}

int32_t java_string_hash(std::string_view s) {
  uint32_t h = 0;
  size_t i = 0;
  while (i < s.size()) {
    auto b = static_cast<unsigned char>(s[i]);
    if (b < 0x80) {
      h = h * 31u + b;
      ++i;
      continue;
    }
    char32_t cp;
    size_t len;
    if ((b >> 5) == 6) {
      cp = b & 0x1F;
      len = 2;
    } else if ((b >> 4) == 14) {
      cp = b & 0x0F;
      len = 3;
    } else {
      cp = b & 0x07;
      len = 4;
    }
    if (i + len > s.size()) len = s.size() - i;
    for (size_t k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    i += len;
    if (cp >= 0x10000) {
      cp -= 0x10000;
      h = h * 31u + (0xD800 + (cp >> 10));
      h = h * 31u + (0xDC00 + (cp & 0x3FF));
    } else {
      h = h * 31u + cp;
    }
  }
  return static_cast<int32_t>(h);
}

}  // namespace unieval::metrics::text
