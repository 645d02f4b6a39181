#include "tasks/unilm_text.h"

#include <cstring>

namespace unieval::tasks {

namespace {

// Python's string.punctuation.
constexpr const char* kPunctuation = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";

bool py2_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }
bool ascii_digit(char c) { return c >= '0' && c <= '9'; }
// Python `s in string.punctuation` for a str s: a substring test ("" is in every string).
bool in_punctuation(const std::string& s) { return std::string(kPunctuation).find(s) != std::string::npos; }
bool first_is_punctuation(const std::string& s) { return !s.empty() && std::strchr(kPunctuation, s[0]) && s[0] != '\0'; }
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

const char* mapped_token(const std::string& t) {
  static const std::pair<const char*, const char*> kMap[] = {
      {"(", "-lrb-"}, {")", "-rrb-"}, {"[", "-lsb-"}, {"]", "-rsb-"}, {"{", "-lcb-"},
      {"}", "-rcb-"}, {"[UNK]", "UNK"}, {"&", "&amp;"}, {"<", "&lt;"}, {">", "&gt;"}};
  for (const auto& [from, to] : kMap)
    if (t == from) return to;
  return nullptr;
}

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

std::string unilm_fix_tokenization(const std::string& text) {
  const std::vector<std::string> in = py2_split(text);
  const size_t n = in.size();
  std::vector<std::string> out;
  bool open_double = false, open_single = false, prev_dash = false;
  size_t i = 0;
  while (i < n) {
    const std::string& tok = in[i];
    bool dash_now = false;
    if (const char* m = mapped_token(tok)) {
      out.push_back(m);
      i += 1;
    } else if (tok == "\"") {
      out.push_back(open_double ? "''" : "``");
      open_double = !open_double;
      i += 1;
    } else if (tok == "'" && !out.empty() && !out.back().empty() && out.back().back() == 'n' && i + 1 < n &&
               in[i + 1] == "t") {
      out.back().pop_back();
      out.push_back("n't");
      i += 2;
    } else if (tok == "'" && i + 1 < n && (in[i + 1] == "s" || in[i + 1] == "d" || in[i + 1] == "ll")) {
      out.push_back("'" + in[i + 1]);
      i += 2;
    } else if (tok == "'") {
      out.push_back(open_single ? "'" : "`");
      open_single = !open_single;
      i += 1;
    } else if (tok == "." && i + 2 < n && in[i + 1] == "." && in[i + 2] == ".") {
      out.push_back("...");
      i += 3;
    } else if (tok == "," && !out.empty() && digits_or_commas(out.back()) && i + 1 < n &&
               digits_or_commas(in[i + 1])) {
      out.back() += "," + in[i + 1];
      i += 2;
    } else if (tok == "." && !out.empty() && all_digits(out.back()) && i + 1 < n && all_digits(in[i + 1])) {
      out.back() += "." + in[i + 1];
      i += 2;
    } else if (tok == "." && !out.empty() && one_upper_letter(out.back()) && i + 2 < n &&
               one_upper_letter(in[i + 1]) && in[i + 2] == ".") {
      // The script scans further ". X" pairs from k = i + 3 (checking k+1 and k+2), glues
      // in[i:k] and then advances by two only: the closing "." is seen again.
      size_t k = i + 3;
      while (k + 2 < n && one_upper_letter(in[k + 1]) && in[k + 2] == ".") k += 2;
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

std::string wordpiece_detokenize(const std::string& text) {
  std::vector<std::string> out;
  for (auto& t : py2_split(text)) {
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
