// Follows sacreBLEU (Apache-2.0), mteval (no licence; behaviour only, no code taken) and CPython
// (PSF-2.0) behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
#include "metrics/text/tokenize_13a.h"

#include <algorithm>
#include <memory>

#include "core/py_string.h"
#include "core/utf8.h"

namespace unieval::metrics::text {

namespace {

inline bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Rule 1 of tokenizer_re.py: ([\{-\~\[-\` -\&\(-\+\:-\@\/]) -> " \1 ".
inline bool is_13a_punct(unsigned char c) {
  return (c >= '{' && c <= '~') || (c >= '[' && c <= '`') || (c >= ' ' && c <= '&') ||
         (c >= '(' && c <= '+') || (c >= ':' && c <= '@') || c == '/';
}

// A growable raw byte buffer (std::string would zero-fill on every resize).
class Scratch {
 public:
  // A buffer of at least n bytes; earlier contents are lost when it grows.
  char* get(size_t n) {
    if (cap_ < n) {
      cap_ = std::max(n, cap_ * 2);
      buf_.reset(new char[cap_]);
    }
    return buf_.get();
  }
  const char* data() const { return buf_.get(); }
  char* data() { return buf_.get(); }

 private:
  std::unique_ptr<char[]> buf_;
  size_t cap_ = 0;
};

}  // namespace

std::string tokenize_regexp_post(std::string_view line) {
  // Each rule is a left-to-right, non-overlapping global substitution, as Python's re.sub.
  // Written with raw buffers: this is the hot loop of BLEU 13a. Two scratch buffers per thread,
  // grown on demand and never cleared: no allocation and no zero-filling per line. Rule 1 adds
  // no '.', ',', '-' and no non-ASCII byte, so rules 2-3 run only on lines with '.' or ',',
  // rule 4 only on lines with '-' (elsewhere they match nothing), and the ASCII test is the
  // input's.
  thread_local Scratch a, b;
  const size_t n0 = line.size();
  char* w = a.get(n0 * 3 + 1);
  bool dot_comma = false, dash = false;
  unsigned char high = 0;
  for (unsigned char c : line) {  // Rule 1
    high |= c;
    dot_comma |= c == '.' || c == ',';
    dash |= c == '-';
    if (is_13a_punct(c)) {
      *w++ = ' ';
      *w++ = static_cast<char>(c);
      *w++ = ' ';
    } else {
      *w++ = static_cast<char>(c);
    }
  }
  Scratch* cur = &a;  // the buffer holding the text so far
  Scratch* other = &b;
  size_t len = static_cast<size_t>(w - a.data());
  // Rules 2-4 each grow the text by at most 2 bytes per match (<= 1 match per 2 bytes).
  if (dot_comma) {
    w = b.get(len * 2 + 2);
    const char* r = a.data();
    for (size_t i = 0; i < len;) {  // Rule 2: ([^0-9])([\.,]) -> "\1 \2 "
      if (i + 1 < len && !is_digit(r[i]) && (r[i + 1] == '.' || r[i + 1] == ',')) {
        *w++ = r[i];
        *w++ = ' ';
        *w++ = r[i + 1];
        *w++ = ' ';
        i += 2;
      } else {
        *w++ = r[i++];
      }
    }
    size_t nb = static_cast<size_t>(w - b.data());
    w = a.get(nb * 2 + 2);  // a's text is consumed: it may be reallocated
    r = b.data();
    for (size_t i = 0; i < nb;) {  // Rule 3: ([\.,])([^0-9]) -> " \1 \2"
      if (i + 1 < nb && (r[i] == '.' || r[i] == ',') && !is_digit(r[i + 1])) {
        *w++ = ' ';
        *w++ = r[i];
        *w++ = ' ';
        *w++ = r[i + 1];
        i += 2;
      } else {
        *w++ = r[i++];
      }
    }
    len = static_cast<size_t>(w - a.data());
  }
  if (dash) {
    w = b.get(len * 2 + 2);
    const char* r = a.data();
    for (size_t i = 0; i < len;) {  // Rule 4: ([0-9])(-) -> "\1 \2 "
      if (i + 1 < len && is_digit(r[i]) && r[i + 1] == '-') {
        *w++ = r[i];
        *w++ = ' ';
        *w++ = '-';
        *w++ = ' ';
        i += 2;
      } else {
        *w++ = r[i++];
      }
    }
    len = static_cast<size_t>(w - b.data());
    std::swap(cur, other);
  }
  if (high >= 0x80) return core::join_py_split(std::string_view(cur->data(), len));
  return core::join_split_ascii(std::string_view(cur->data(), len));
}

namespace {}  // namespace

std::string tokenize_13a(std::string_view line) {
  std::string s;
  s.reserve(line.size() + 2);
  s += ' ';
  s.append(line.data(), line.size());
  bool special = s.find('<') != std::string::npos || s.find('\n') != std::string::npos ||
                 s.find('&') != std::string::npos;
  if (special) {
    core::py_replace_in(s, "<skipped>", "");
    core::py_replace_in(s, "-\n", "");
    core::py_replace_in(s, "\n", " ");
    if (s.find('&') != std::string::npos) {
      core::py_replace_in(s, "&quot;", "\"");
      core::py_replace_in(s, "&amp;", "&");
      core::py_replace_in(s, "&lt;", "<");
      core::py_replace_in(s, "&gt;", ">");
    }
  }
  s += ' ';
  return tokenize_regexp_post(s);
}

namespace {

// sacrebleu tokenizer_zh.py _UCODE_RANGES, compared the way Python compares strings: the
// entries written '\u20000' and '\u2f800' are two-character strings ('\u2000' + '0'), so those
// two ranges really are U+2001..U+2A6D and U+2F81..U+2FA1.
bool is_zh_char(char32_t c) {
  static const char32_t kRanges[][2] = {
      {0x3400, 0x4DB5}, {0x4E00, 0x9FA5}, {0x9FA6, 0x9FBB}, {0xF900, 0xFA2D}, {0xFA30, 0xFA6A},
      {0xFA70, 0xFAD9}, {0x2001, 0x2A6D}, {0x2F81, 0x2FA1}, {0xFF00, 0xFFEF}, {0x2E80, 0x2EFF},
      {0x3000, 0x303F}, {0x31C0, 0x31EF}, {0x2F00, 0x2FDF}, {0x2FF0, 0x2FFF}, {0x3100, 0x312F},
      {0x31A0, 0x31BF}, {0xFE10, 0xFE1F}, {0xFE30, 0xFE4F}, {0x2600, 0x26FF}, {0x2700, 0x27BF},
      {0x3200, 0x32FF}, {0x3300, 0x33FF}};
  if (c < 0x2001) return false;
  for (const auto& r : kRanges)
    if (c >= r[0] && c <= r[1]) return true;
  return false;
}

}  // namespace

std::string tokenize_zh(std::string_view line) {
  std::string_view s = core::py_strip(line);
  std::string out;
  out.reserve(s.size() * 2);
  for (size_t i = 0; i < s.size();) {
    size_t start = i;
    char32_t c = core::next_code_point(s, i);
    if (is_zh_char(c)) out += ' ';
    out.append(s.data() + start, i - start);
    if (is_zh_char(c)) out += ' ';
  }
  return tokenize_regexp_post(out);
}

std::string tokenize_char(std::string_view line) {
  std::string out;
  out.reserve(line.size() * 2);
  for (size_t i = 0; i < line.size();) {
    size_t start = i;
    core::next_code_point(line, i);
    if (start) out += ' ';
    out.append(line.data() + start, i - start);
  }
  return out;
}

}  // namespace unieval::metrics::text
