// Follows UniLM (MIT) behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
#include "tasks/unilm_text.h"

#include <unicode/uchar.h>

#include <algorithm>
#include <cstring>
#include <set>

#include "core/py_string.h"
#include "core/utf8.h"
#include "metrics/text/py_lower.h"

namespace unieval::tasks {

namespace {

// Python's string.punctuation.
constexpr const char* kPunctuation = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";

bool py2_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}
bool ascii_digit(char c) { return c >= '0' && c <= '9'; }
// Python `s in string.punctuation` for a str s: a substring test ("" is in every string).
bool in_punctuation(const std::string& s) {
  return std::string(kPunctuation).find(s) != std::string::npos;
}
bool first_is_punctuation(const std::string& s) {
  return !s.empty() && std::strchr(kPunctuation, s[0]) && s[0] != '\0';
}
// Python 2 str.isdigit(): non-empty, all ASCII digits.
bool all_digits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!ascii_digit(c)) return false;
  return true;
}
// UniLM _is_digit(): every byte a digit or ',' (true for "").
bool digits_or_commas(const std::string& s) {
  for (char c : s)
    if (!ascii_digit(c) && c != ',') return false;
  return true;
}
// len(s) == 1 and s.isupper() on a byte string.
bool one_upper_letter(const std::string& s) { return s.size() == 1 && s[0] >= 'A' && s[0] <= 'Z'; }

const char* mapped_token(const std::string& t, UnilmFlavour f) {
  static const std::pair<const char*, const char*> kQgMap[] = {
      {"(", "-lrb-"}, {")", "-rrb-"},   {"[", "-lsb-"}, {"]", "-rsb-"}, {"{", "-lcb-"},
      {"}", "-rcb-"}, {"[UNK]", "UNK"}, {"&", "&amp;"}, {"<", "&lt;"},  {">", "&gt;"}};
  static const std::pair<const char*, const char*> kCnndmMap[] = {{"(", "-LRB-"}, {")", "-RRB-"},
                                                                  {"[", "-LSB-"}, {"]", "-RSB-"},
                                                                  {"{", "-LCB-"}, {"}", "-RCB-"}};
  if (f == UnilmFlavour::kQg) {
    for (const auto& [from, to] : kQgMap)
      if (t == from) return to;
  } else {
    for (const auto& [from, to] : kCnndmMap)
      if (t == from) return to;
  }
  return nullptr;
}

// UTF-8 -> code points (input is UTF-8 checked on read).
std::vector<UChar32> code_points(const std::string& s) {
  std::vector<UChar32> out;
  for (size_t i = 0; i < s.size();)
    out.push_back(static_cast<UChar32>(core::next_code_point(s, i)));
  return out;
}

// Python 3 str.isdigit() of one character: numeric type decimal or digit.
bool py3_digit(UChar32 c) {
  int t = u_getIntPropertyValue(c, UCHAR_NUMERIC_TYPE);
  return t == U_NT_DECIMAL || t == U_NT_DIGIT;
}

// The character classes fix_tokenization consults, per flavour.
struct CharClasses {
  UnilmFlavour flavour;
  bool all_digits(const std::string& s) const {
    if (flavour == UnilmFlavour::kQg) return tasks::all_digits(s);
    auto cps = code_points(s);
    if (cps.empty()) return false;
    for (UChar32 c : cps)
      if (!py3_digit(c)) return false;
    return true;
  }
  bool digits_or_commas(const std::string& s) const {
    if (flavour == UnilmFlavour::kQg) return tasks::digits_or_commas(s);
    for (UChar32 c : code_points(s))
      if (!py3_digit(c) && c != ',') return false;
    return true;
  }
  bool one_upper_letter(const std::string& s) const {
    if (flavour == UnilmFlavour::kQg) return tasks::one_upper_letter(s);
    auto cps = code_points(s);
    return cps.size() == 1 && u_isUUppercase(cps[0]);
  }
};

}  // namespace

std::string py2_strip(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && py2_space(s[b])) ++b;
  while (e > b && py2_space(s[e - 1])) --e;
  return s.substr(b, e - b);
}

std::string py2_lower(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

std::vector<std::string> py2_split(const std::string& s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && py2_space(s[i])) ++i;
    size_t b = i;
    while (i < s.size() && !py2_space(s[i])) ++i;
    if (i > b) out.push_back(s.substr(b, i - b));
  }
  return out;
}

std::vector<std::string> py3_split(const std::string& s) {
  std::vector<std::string> out;
  for (auto t : core::py_split(s)) out.emplace_back(t);
  return out;
}

std::string py3_strip(const std::string& s) { return std::string(core::py_strip(s)); }

std::string unilm_fix_tokenization(const std::string& text, UnilmFlavour flavour) {
  const CharClasses cc{flavour};
  const std::vector<std::string> in =
      flavour == UnilmFlavour::kQg ? py2_split(text) : py3_split(text);
  const size_t n = in.size();
  std::vector<std::string> out;
  bool open_double = false, open_single = false, prev_dash = false;
  size_t i = 0;
  while (i < n) {
    const std::string& tok = in[i];
    bool dash_now = false;
    if (const char* m = mapped_token(tok, flavour)) {
      out.push_back(m);
      i += 1;
    } else if (tok == "\"") {
      out.push_back(open_double ? "''" : "``");
      open_double = !open_double;
      i += 1;
    } else if (tok == "'" && !out.empty() && !out.back().empty() && out.back().back() == 'n' &&
               i + 1 < n && in[i + 1] == "t") {
      out.back().pop_back();
      out.push_back("n't");
      i += 2;
    } else if (tok == "'" && i + 1 < n &&
               (in[i + 1] == "s" || in[i + 1] == "d" || in[i + 1] == "ll")) {
      out.push_back("'" + in[i + 1]);
      i += 2;
    } else if (tok == "'") {
      out.push_back(open_single ? "'" : "`");
      open_single = !open_single;
      i += 1;
    } else if (tok == "." && i + 2 < n && in[i + 1] == "." && in[i + 2] == ".") {
      out.push_back("...");
      i += 3;
    } else if (tok == "," && !out.empty() && cc.digits_or_commas(out.back()) && i + 1 < n &&
               cc.digits_or_commas(in[i + 1])) {
      out.back() += "," + in[i + 1];
      i += 2;
    } else if (tok == "." && !out.empty() && cc.all_digits(out.back()) && i + 1 < n &&
               cc.all_digits(in[i + 1])) {
      out.back() += "." + in[i + 1];
      i += 2;
    } else if (tok == "." && !out.empty() && cc.one_upper_letter(out.back()) && i + 2 < n &&
               cc.one_upper_letter(in[i + 1]) && in[i + 2] == ".") {
      // The script scans further ". X" pairs from k = i + 3 (checking k+1 and k+2), glues
      // in[i:k] and then advances by two only: the closing "." is seen again.
      size_t k = i + 3;
      while (k + 2 < n && cc.one_upper_letter(in[k + 1]) && in[k + 2] == ".") k += 2;
      for (size_t j = i; j < k; ++j) out.back() += in[j];
      i += 2;
    } else if (tok == "-") {
      if (i + 1 < n && in[i + 1] == "-") {
        out.push_back("--");
        i += 2;
      } else if (i + 1 == n || i == 0) {
        out.push_back("-");
        i += 1;
      } else if (!in_punctuation(out.back()) && !first_is_punctuation(in[i + 1])) {
        out.back() += "-";
        i += 1;
        dash_now = true;
      } else {
        out.push_back("-");
        i += 1;
      }
    } else if (prev_dash && !out.empty() && !first_is_punctuation(tok)) {
      out.back() += tok;
      i += 1;
    } else {
      out.push_back(tok);
      i += 1;
    }
    prev_dash = dash_now;
  }
  std::string joined;
  for (size_t j = 0; j < out.size(); ++j) {
    if (j) joined += ' ';
    joined += out[j];
  }
  return joined;
}

std::vector<std::string> unilm_cnndm_postprocess(const std::string& line,
                                                 const UnilmCnndmOptions& opts) {
  // Python str.split("[X_SEP]") on the stripped line.
  const std::string text = py3_strip(line);
  const std::string sep = "[X_SEP]";
  std::vector<std::string> buf;
  size_t pos = 0;
  while (true) {
    size_t hit = text.find(sep, pos);
    std::string sentence = unilm_fix_tokenization(
        text.substr(pos, hit == std::string::npos ? std::string::npos : hit - pos),
        UnilmFlavour::kCnndm);
    if (py3_split(sentence).size() > 4) buf.push_back(std::move(sentence));
    if (hit == std::string::npos) break;
    pos = hit + sep.size();
  }
  if (opts.duplicate_rate > 0 && opts.duplicate_rate < 1) {
    std::vector<std::string> kept;
    std::set<std::string> history;
    for (auto& sentence : buf) {
      std::vector<std::string> toks = py3_split(py3_lower(sentence));
      std::set<std::string> words(toks.begin(), toks.end());
      size_t seen = 0;
      for (const auto& w : words) seen += history.count(w);
      if (static_cast<double>(seen) / static_cast<double>(words.size()) <= opts.duplicate_rate)
        kept.push_back(sentence);
      history.insert(words.begin(), words.end());
    }
    buf.swap(kept);
  }
  if (opts.trunc_len > 0) {
    std::vector<std::string> out;
    long left = opts.trunc_len;
    for (const auto& sentence : buf) {
      std::vector<std::string> toks = py3_split(sentence);
      size_t n = std::min(toks.size(), static_cast<size_t>(left));
      std::string cut;
      for (size_t j = 0; j < n; ++j) cut += (j ? " " : "") + toks[j];
      out.push_back(cut);
      left -= static_cast<long>(n);
      if (left <= 0) break;
    }
    buf.swap(out);
  }
  return buf;
}

std::vector<std::string> unilm_cnndm_gold(const std::string& line) {
  std::string s = py3_strip(line);
  std::vector<std::string> out;
  const std::string sep = " <S_SEP> ";
  size_t pos = 0;
  while (true) {
    size_t hit = s.find(sep, pos);
    out.push_back(s.substr(pos, hit == std::string::npos ? std::string::npos : hit - pos));
    if (hit == std::string::npos) break;
    pos = hit + sep.size();
  }
  return out;
}

std::string py3_lower(const std::string& s) { return metrics::text::py_lower(s); }

std::string wordpiece_detokenize(const std::string& text, bool py3) {
  std::vector<std::string> out;
  for (auto& t : py3 ? py3_split(text) : py2_split(text)) {
    if (t.size() >= 2 && t[0] == '#' && t[1] == '#' && !out.empty())
      out.back() += t.substr(2);
    else
      out.push_back(t);
  }
  std::string joined;
  for (size_t j = 0; j < out.size(); ++j) {
    if (j) joined += ' ';
    joined += out[j];
  }
  return joined;
}

}  // namespace unieval::tasks
