// Follows ROUGE-1.5.5 (research release, no OSI licence) and rouge-score (Apache-2.0) behaviour; no
// code copied; see THIRD_PARTY_NOTICES.md.
#include "metrics/text/rouge_tokenize.h"

#include "core/utf8.h"
#include "metrics/text/porter_nltk.h"

namespace unieval::metrics::text {

namespace {
bool is_alnum_ascii(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}
// Perl's \s (5.18+): space, \t, \n, \v, \f, \r.
bool is_perl_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}
}  // namespace

std::vector<std::string> rouge155_tokens(std::string_view text) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && !is_alnum_ascii(static_cast<unsigned char>(text[i]))) ++i;
    size_t j = i;
    while (j < text.size() && is_alnum_ascii(static_cast<unsigned char>(text[j]))) ++j;
    if (j > i) {
      std::string tok(text.substr(i, j - i));
      for (char& c : tok)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      out.push_back(std::move(tok));
    }
    i = j;
  }
  return out;
}

std::vector<std::string_view> perl_split_ascii_ws(std::string_view text) {
  std::vector<std::string_view> out;
  size_t i = 0;
  // A leading run of whitespace produces one leading empty field.
  if (!text.empty() && is_perl_space(text[0])) {
    out.emplace_back();
    while (i < text.size() && is_perl_space(text[i])) ++i;
  }
  while (i < text.size()) {
    size_t j = i;
    while (j < text.size() && !is_perl_space(text[j])) ++j;
    out.push_back(text.substr(i, j - i));
    while (j < text.size() && is_perl_space(text[j])) ++j;
    i = j;
  }
  // Trailing empty fields are removed by split; only the leading one can be empty here, and a
  // text of whitespace only gives no fields at all.
  if (out.size() == 1 && out[0].empty()) out.clear();
  return out;
}

std::string ascii_lower(std::string_view text) {
  std::string s(text);
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

std::vector<std::string> rouge_score_tokens(std::string_view text, bool stem) {
  // Map the text to the [a-z0-9] / separator alphabet after Python's str.lower().
  std::string mapped;
  mapped.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      char lc = static_cast<char>(c);
      if (lc >= 'A' && lc <= 'Z') lc = static_cast<char>(lc - 'A' + 'a');
      mapped += ((lc >= 'a' && lc <= 'z') || (lc >= '0' && lc <= '9')) ? lc : ' ';
      ++i;
      continue;
    }
    size_t len = core::utf8_sequence_length(c);
    std::string_view ch = text.substr(i, len);
    if (ch == "\xC4\xB0")
      mapped += "i ";  // U+0130 -> "i" + U+0307 (combining dot)
    else if (ch == "\xE2\x84\xAA")
      mapped += "k";  // U+212A KELVIN SIGN -> "k"
    else
      mapped += ' ';
    i += len;
  }
  std::vector<std::string> out;
  size_t i = 0;
  while (i < mapped.size()) {
    while (i < mapped.size() && mapped[i] == ' ') ++i;
    size_t j = i;
    while (j < mapped.size() && mapped[j] != ' ') ++j;
    if (j > i) {
      std::string tok = mapped.substr(i, j - i);
      if (stem && tok.size() > 3) tok = nltk_porter_stem(tok);
      out.push_back(std::move(tok));
    }
    i = j;
  }
  return out;
}

}  // namespace unieval::metrics::text
