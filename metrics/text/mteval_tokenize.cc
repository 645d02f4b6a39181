// Follows mteval (no licence) and DSTC7 (no code licence) behaviour only; no code taken; see
// THIRD_PARTY_NOTICES.md.
#include "metrics/text/mteval_tokenize.h"

#include "core/py_string.h"
#include "core/utf8.h"
#include "metrics/text/tokenize_intl.h"
#include "metrics/token_interner.h"

namespace unieval::metrics::text {

bool is_perl_space(char32_t c) {
  if (c >= 0x1C && c <= 0x1F) return false;  // Python whitespace, not Perl's \s
  return core::is_py_space(c);
}

namespace {

inline size_t perl_space_len(std::string_view s, size_t i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return (c == ' ' || (c >= 0x09 && c <= 0x0D)) ? 1 : 0;
  if (c != 0xC2 && c != 0xE1 && c != 0xE2 && c != 0xE3) return 0;
  size_t j = i;
  char32_t cp = core::next_code_point(s, j);
  return is_perl_space(cp) ? j - i : 0;
}

// s/\s+/ /g; s/^\s+//; s/\s+$//
std::string squeeze_trim(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  bool pending = false;
  for (size_t i = 0; i < s.size();) {
    size_t l = perl_space_len(s, i);
    if (l) {
      pending = true;
      i += l;
      continue;
    }
    if (pending && !out.empty()) out += ' ';
    pending = false;
    size_t start = i;
    core::next_code_point(s, i);
    out.append(s.data() + start, i - start);
  }
  return out;
}

inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
inline bool is_13a_punct(unsigned char c) {
  return (c >= '{' && c <= '~') || (c >= '[' && c <= '`') || (c >= ' ' && c <= '&') ||
         (c >= '(' && c <= '+') || (c >= ':' && c <= '@') || c == '/';
}

// mteval NormalizeText / tokenization_orig (identical rules in v13a and v14c).
std::string normalize_orig(std::string_view text, bool preserve_case) {
  std::string s(text);
  core::py_replace_in(s, "<skipped>", "");
  core::py_replace_in(s, "-\n", "");
  core::py_replace_in(s, "\n", " ");
  core::py_replace_in(s, "&quot;", "\"");
  core::py_replace_in(s, "&amp;", "&");
  core::py_replace_in(s, "&lt;", "<");
  core::py_replace_in(s, "&gt;", ">");
  s = " " + s + " ";
  if (!preserve_case)
    for (char& c : s)
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');  // tr/[A-Z]/[a-z]/
  std::string a;
  a.reserve(s.size() * 2);
  for (unsigned char c : s) {
    if (is_13a_punct(c)) {
      a += ' ';
      a += static_cast<char>(c);
      a += ' ';
    } else {
      a += static_cast<char>(c);
    }
  }
  std::string b;
  for (size_t i = 0; i < a.size();) {
    if (i + 1 < a.size() && !is_digit(a[i]) && (a[i + 1] == '.' || a[i + 1] == ',')) {
      b += a[i];
      b += ' ';
      b += a[i + 1];
      b += ' ';
      i += 2;
    } else {
      b += a[i++];
    }
  }
  a.clear();
  for (size_t i = 0; i < b.size();) {
    if (i + 1 < b.size() && (b[i] == '.' || b[i] == ',') && !is_digit(b[i + 1])) {
      a += ' ';
      a += b[i];
      a += ' ';
      a += b[i + 1];
      i += 2;
    } else {
      a += b[i++];
    }
  }
  b.clear();
  for (size_t i = 0; i < a.size();) {
    if (i + 1 < a.size() && is_digit(a[i]) && a[i + 1] == '-') {
      b += a[i];
      b += " - ";
      i += 2;
    } else {
      b += a[i++];
    }
  }
  return squeeze_trim(b);
}

}  // namespace

std::vector<std::string_view> perl_split_ws(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0, n = s.size();
  if (n == 0) return out;
  size_t start = 0;
  while (i < n) {
    size_t l = perl_space_len(s, i);
    if (l) {
      out.push_back(s.substr(start, i - start));
      while (i < n && (l = perl_space_len(s, i)) > 0) i += l;
      start = i;
    } else {
      core::next_code_point(s, i);
    }
  }
  out.push_back(s.substr(start, n - start));
  // A leading separator yields a leading empty field (kept, as Perl does); trailing empty
  // fields are dropped.
  while (!out.empty() && out.back().empty()) out.pop_back();
  return out;
}

std::string mteval_normalize(std::string_view text, MtevalTokenization mode, bool preserve_case) {
  switch (mode) {
    case MtevalTokenization::kV13a:
      return normalize_orig(text, preserve_case);
    case MtevalTokenization::kIntl:
      return mteval_tokenize_intl(text, preserve_case);
    case MtevalTokenization::kV14c: {
      std::string trimmed = squeeze_trim(text);  // trim(); inner runs are split next anyway
      std::string out;
      bool first = true;
      for (auto tok : perl_split_ws(trimmed)) {
        if (!first) out += ' ';
        first = false;
        if (tok.rfind("http://", 0) == 0 || tok.rfind("https://", 0) == 0) {
          out.append(tok.data(), tok.size());
        } else {
          // tokenization_orig is a pure function of the token: memoise it (tokens repeat a lot),
          // keyed by the token's id in an interner (no string built per lookup).
          struct Cache {
            Vocabulary raw;                 // token -> id
            std::vector<std::string> norm;  // id -> normalize_orig(token)
          };
          thread_local Cache cache[2];
          Cache& c = cache[preserve_case ? 1 : 0];
          if (c.norm.size() > (1u << 20)) c = Cache();
          uint32_t id = c.raw.id(tok);
          if (id == c.norm.size()) c.norm.push_back(normalize_orig(tok, preserve_case));
          out += c.norm[id];
        }
      }
      return out;
    }
  }
  return std::string(text);
}

std::string dstc7_xml_segment(std::string_view line) {
  std::string s(line);
  for (char& c : s)
    if (c == '&' || c == '<') c = ' ';
  if (s.empty()) s = "__empty__";
  return " " + s + " ";
}

}  // namespace unieval::metrics::text
