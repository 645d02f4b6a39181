#pragma once
// Follows CPython (PSF-2.0) behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
// Python 3 str semantics on UTF-8 text: the one module every part uses for split / strip /
// rstrip / replace / ' '.join(s.split()) when it reproduces a Python script byte for byte.
//
//   core::py_split(" a\u3000b ")          -> {"a", "b"}   (Python's Unicode whitespace)
//   core::py_strip("\u00a0x \n")          -> "x"
//   core::py_replace("aaa", "aa", "b")    -> "ba"         (left to right, never rescanned)
//   core::join_py_split(" a  b\t")        -> "a b"
//
// | function          | same result as (Python 3)                                            |
// |-------------------|----------------------------------------------------------------------|
// | is_py_space       | str.isspace() of one code point (White_Space plus U+001C..U+001F)    |
// | py_split          | str.split() with no argument: runs of whitespace, no empty fields    |
// | py_strip/_rstrip  | str.strip() / str.rstrip() with no argument                          |
// | py_split_on       | str.split(sep) with a one-character sep: every field, empty ones too  |
// | py_strip_chars    | str.strip(chars) with ASCII chars                                     |
// | py_replace(_in)   | str.replace(old, new) (an empty `old` leaves s unchanged)            |
// | join_py_split     | ' '.join(s.split()); join_split_ascii is the same for pure-ASCII s   |
// | py_startswith/_endswith | str.startswith(p) / str.endswith(p) (bytes compared)           |
//
// str.lower() is not here: its full Unicode mapping (SpecialCasing, final sigma) comes from ICU,
// and core links no ICU (only zlib/libdeflate), so it lives in metrics/text/py_lower.h. Text is
// decoded with core::next_code_point (core/utf8.h): on valid UTF-8 these are exactly Python's
// results; a stray byte is a non-space character.
#include <string>
#include <string_view>
#include <vector>

namespace unieval::core {

// Python str.isspace() for one code point.
inline bool is_py_space(char32_t c) {
  if (c <= 0x20) return c == 0x20 || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F);
  if (c < 0x85) return false;
  return c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 ||
         c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

// Python str.startswith(p) / str.endswith(p).
inline bool py_startswith(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}
inline bool py_endswith(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

// Python str.split(): fields separated by runs of Python whitespace, no empty fields.
std::vector<std::string_view> py_split(std::string_view s);
// Python str.split(sep) for a one-character sep: n separators give n + 1 fields, empty ones kept
// (TSV rows: `line.split("\t")`).
std::vector<std::string> py_split_on(std::string_view s, char sep);
// Python str.strip(chars) for ASCII chars (e.g. " \t\r\n").
std::string py_strip_chars(std::string_view s, std::string_view chars);
// Python str.rstrip() / str.strip() with no argument.
std::string_view py_rstrip(std::string_view s);
std::string_view py_strip(std::string_view s);
// Python str.replace(from, to): left to right, non-overlapping, the replacement never rescanned
// (an empty `from` leaves s unchanged). The second form replaces in place.
std::string py_replace(std::string_view s, std::string_view from, std::string_view to);
void py_replace_in(std::string& s, std::string_view from, std::string_view to);
// The same on decoded code points (mteval's international tokenisation works on them).
void py_replace_in(std::u32string& s, std::u32string_view from, std::u32string_view to);

// ' '.join(s.split()) (Python whitespace).
std::string join_py_split(std::string_view s);

// ' '.join(s.split()) for pure-ASCII s (a hot loop of BLEU 13a, hence inline).
inline std::string join_split_ascii(std::string_view s) {
  // Python's whitespace in ASCII: \t\n\v\f\r, 0x1c-0x1f and space.
  std::string out;
  out.resize(s.size());
  char* const base = out.data();
  char* o = base;
  bool pending = false;
  for (unsigned char c : s) {
    if (c == ' ' || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F)) {
      pending = true;
      continue;
    }
    if (pending && o != base) *o++ = ' ';
    pending = false;
    *o++ = static_cast<char>(c);
  }
  out.resize(static_cast<size_t>(o - base));
  return out;
}

}  // namespace unieval::core
