// Follows sacreBLEU (Apache-2.0), mteval (no licence) and CPython (PSF-2.0) behaviour; clean-room,
// see THIRD_PARTY_NOTICES.md.
#include "metrics/text/tokenize_13a.h"
#include "core/utf8.h"

#include <algorithm>
#include <memory>

#include <unicode/ustring.h>
#include <unicode/utypes.h>

namespace unieval::metrics::text {

char32_t next_code_point(std::string_view s, size_t& i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) {
    ++i;
    return c;
  }
  int len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 0;
  if (len == 0 || i + len > s.size()) {
    ++i;
    return c;
  }
  char32_t cp = c & (0x3F >> (len - 1));
  for (int k = 1; k < len; ++k) {
    unsigned char d = static_cast<unsigned char>(s[i + k]);
    if ((d & 0xC0) != 0x80) {
      ++i;
      return c;
    }
    cp = (cp << 6) | (d & 0x3F);
  }
  i += len;
  return cp;
}

void append_utf8(std::string& out, char32_t c) { utf8::append(out, c); }

bool is_py_space(char32_t c) {
  if (c <= 0x20) return c == 0x20 || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F);
  if (c < 0x85) return false;
  return c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 ||
         c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

namespace {

// Length in bytes of the Python-whitespace character at s[i], or 0 when it is not whitespace.
inline size_t space_len(std::string_view s, size_t i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return is_py_space(c) ? 1 : 0;
  if (c != 0xC2 && c != 0xE1 && c != 0xE2 && c != 0xE3) return 0;  // fast reject
  size_t j = i;
  char32_t cp = next_code_point(s, j);
  return is_py_space(cp) ? j - i : 0;
}

}  // namespace

std::vector<std::string_view> py_split(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0, n = s.size();
  while (i < n) {
    size_t l;
    while (i < n && (l = space_len(s, i)) > 0) i += l;
    if (i >= n) break;
    size_t start = i;
    while (i < n && space_len(s, i) == 0) {
      unsigned char c = static_cast<unsigned char>(s[i]);
      i += c < 0x80 ? 1 : (c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1);
      if (i > n) i = n;
    }
    out.push_back(s.substr(start, i - start));
  }
  return out;
}

std::string_view py_rstrip(std::string_view s) {
  // Fast path: trailing ASCII whitespace on text whose last remaining byte is ASCII.
  size_t e = s.size();
  while (e > 0) {
    unsigned char c = static_cast<unsigned char>(s[e - 1]);
    if (c >= 0x80) break;
    if (!is_py_space(c)) return s.substr(0, e);
    --e;
  }
  if (e == 0) return s.substr(0, 0);
  // Walk code points forward, remembering the end of the last non-space character.
  size_t i = 0, end = 0;
  while (i < s.size()) {
    size_t l = space_len(s, i);
    if (l) {
      i += l;
    } else {
      next_code_point(s, i);
      end = i;
    }
  }
  return s.substr(0, end);
}

std::string_view py_strip(std::string_view s) {
  size_t i = 0, l;
  while (i < s.size() && (l = space_len(s, i)) > 0) i += l;
  return py_rstrip(s.substr(i));
}

std::string py_replace(std::string_view s, std::string_view from, std::string_view to) {
  std::string out;
  if (from.empty()) return std::string(s);
  out.reserve(s.size());
  size_t pos = 0;
  for (;;) {
    size_t hit = s.find(from, pos);
    if (hit == std::string_view::npos) break;
    out.append(s.data() + pos, hit - pos);
    out.append(to.data(), to.size());
    pos = hit + from.size();
  }
  out.append(s.data() + pos, s.size() - pos);
  return out;
}

void py_replace_in(std::string& s, std::string_view from, std::string_view to) {
  if (from.empty() || s.find(from) == std::string::npos) return;
  s = py_replace(s, from, to);
}

std::string py_lower(std::string_view s) {
  bool ascii = true;
  for (unsigned char c : s) ascii &= c < 0x80;
  if (ascii) {
    std::string out(s);
    for (char& c : out)
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return out;
  }
  UErrorCode err = U_ZERO_ERROR;
  int32_t len16 = 0;
  u_strFromUTF8WithSub(nullptr, 0, &len16, s.data(), static_cast<int32_t>(s.size()), 0xFFFD,
                       nullptr, &err);
  std::u16string u16(len16, u'\0');
  err = U_ZERO_ERROR;
  u_strFromUTF8WithSub(u16.data(), len16, nullptr, s.data(), static_cast<int32_t>(s.size()),
                       0xFFFD, nullptr, &err);
  std::u16string low(len16 * 3 + 4, u'\0');
  err = U_ZERO_ERROR;
  int32_t low_len = u_strToLower(low.data(), static_cast<int32_t>(low.size()), u16.data(), len16,
                                 "", &err);
  if (U_FAILURE(err)) return std::string(s);
  std::string out(static_cast<size_t>(low_len) * 3 + 4, '\0');
  int32_t out_len = 0;
  err = U_ZERO_ERROR;
  u_strToUTF8(out.data(), static_cast<int32_t>(out.size()), &out_len, low.data(), low_len, &err);
  if (U_FAILURE(err)) return std::string(s);
  out.resize(out_len);
  return out;
}

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
  if (high >= 0x80) return join_py_split(std::string_view(cur->data(), len));
  return join_split_ascii(std::string_view(cur->data(), len));
}

std::string join_py_split(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (auto tok : py_split(s)) {
    if (!out.empty()) out += ' ';
    out.append(tok.data(), tok.size());
  }
  return out;
}

std::string join_split_ascii(std::string_view s) {
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

namespace {


}  // namespace

std::string tokenize_13a(std::string_view line) {
  std::string s;
  s.reserve(line.size() + 2);
  s += ' ';
  s.append(line.data(), line.size());
  bool special = s.find('<') != std::string::npos || s.find('\n') != std::string::npos ||
                 s.find('&') != std::string::npos;
  if (special) {
    py_replace_in(s, "<skipped>", "");
    py_replace_in(s, "-\n", "");
    py_replace_in(s, "\n", " ");
    if (s.find('&') != std::string::npos) {
      py_replace_in(s, "&quot;", "\"");
      py_replace_in(s, "&amp;", "&");
      py_replace_in(s, "&lt;", "<");
      py_replace_in(s, "&gt;", ">");
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
  std::string_view s = py_strip(line);
  std::string out;
  out.reserve(s.size() * 2);
  for (size_t i = 0; i < s.size();) {
    size_t start = i;
    char32_t c = next_code_point(s, i);
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
    next_code_point(line, i);
    if (start) out += ' ';
    out.append(line.data() + start, i - start);
  }
  return out;
}

}  // namespace unieval::metrics::text
