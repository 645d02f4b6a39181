// Follows CPython (PSF-2.0) behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
#include "core/py_string.h"

#include "core/utf8.h"

namespace unieval::core {

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
      i += utf8_sequence_length(c);
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

std::vector<std::string> py_split_on(std::string_view s, char sep) {
  std::vector<std::string> out;
  size_t b = 0;
  for (size_t e = s.find(sep); e != std::string_view::npos; e = s.find(sep, b)) {
    out.emplace_back(s.substr(b, e - b));
    b = e + 1;
  }
  out.emplace_back(s.substr(b));
  return out;
}

std::string py_strip_chars(std::string_view s, std::string_view chars) {
  const size_t b = s.find_first_not_of(chars);
  if (b == std::string_view::npos) return "";
  return std::string(s.substr(b, s.find_last_not_of(chars) - b + 1));
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

void py_replace_in(std::u32string& s, std::u32string_view from, std::u32string_view to) {
  if (from.empty()) return;
  size_t pos = 0;
  std::u32string out;
  bool any = false;
  for (;;) {
    size_t hit = s.find(from, pos);
    if (hit == std::u32string::npos) break;
    any = true;
    out.append(s, pos, hit - pos);
    out.append(to.data(), to.size());
    pos = hit + from.size();
  }
  if (!any) return;
  out.append(s, pos, std::u32string::npos);
  s.swap(out);
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

}  // namespace unieval::core
