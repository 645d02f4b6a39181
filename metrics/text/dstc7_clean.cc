// Follows DSTC7 (no code licence) and NLTK (Apache-2.0) behaviour; clean-room, see
// THIRD_PARTY_NOTICES.md.
#include "metrics/text/dstc7_clean.h"

#include <re2/re2.h>
#include <unicode/locid.h>
#include <unicode/unistr.h>

#include <vector>

#include "metrics/text/squad_normalize.h"

namespace unieval::metrics {

namespace {

std::string python_lower(std::string_view s) {
  bool ascii = true;
  for (char c : s) ascii = ascii && static_cast<unsigned char>(c) < 0x80;
  if (ascii) {
    std::string out(s);
    for (char& c : out)
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
    return out;
  }
  icu::UnicodeString u = icu::UnicodeString::fromUTF8(icu::StringPiece(s.data(), static_cast<int32_t>(s.size())));
  u.toLower(icu::Locale::getRoot());
  std::string out;
  u.toUTF8String(out);
  return out;
}

// Python str.replace(old, new): left to right, non-overlapping.
std::string replace_all(const std::string& s, const std::string& from, const std::string& to) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (true) {
    size_t j = s.find(from, i);
    if (j == std::string::npos) break;
    out.append(s, i, j - i);
    out += to;
    i = j + from.size();
  }
  out.append(s, i, std::string::npos);
  return out;
}

bool allowed(char32_t c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '(' ||
         c == ')' || c == ':' || c == ',' || c == '.' || c == '!' || c == '?' || c == '"' || c == '\'';
}

// NLTK TweetTokenizer patterns (nltk/tokenize/casual.py, 3.8) that can match the cleaned
// alphabet, in the official alternation order (REGEXPS_PHONE: URLS, PHONE, EMOTICONS, ...).
const RE2& tweet_re() {
  static const RE2* re = [] {
    const char* url2 = R"([a-z0-9]+(?:[.\-][a-z0-9]+)*[.](?:[a-z]{2,13})\b/?)";
    const char* phone =
        R"((?:(?:\+?[01][ *\-.\)]*)?(?:[\(]?\d{3}[ *\-.\)]*)?\d{3}[ *\-.\)]*\d{4}))";
    const char* emoticons =
        R"((?:[<>]?[:;=8][\-o\*']?[\)\]\(\[dDpP/\:\}\{@\|\\]|[\)\]\(\[dDpP/\:\}\{@\|\\][\-o\*']?[:;=8][<>]?|</?3))";
    const char* words =
        R"((?:[^\W\d_](?:[^\W\d_]|['\-_])+[^\W\d_])|(?:[+\-]?\d+[,/.:-]\d+[+\-]?)|(?:[\w_]+)|(?:\.(?:\s*\.){1,})|(?:\S))";
    std::string pat = std::string("(?i)(") + url2 + "|" + phone + "|" + emoticons + "|" + words + ")";
    RE2::Options o;
    o.set_case_sensitive(false);
    return new RE2(pat, o);
  }();
  return *re;
}

// HANG_RE.sub(r"\1\1\1"): a run of 4+ identical non-alphanumeric characters becomes 3.
std::string cut_hang(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    size_t j = i + 1;
    while (j < s.size() && s[j] == c) ++j;
    bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    size_t run = j - i;
    out.append(!alnum && run >= 4 ? 3 : run, c);
    i = j;
  }
  return out;
}

}  // namespace

std::string dstc7_clean_str(std::string_view text) {
  std::string txt = python_lower(text);
  // url and tag
  std::string joined;
  for (std::string_view w : python_split(txt)) {
    std::string word(w);
    size_t i = word.find("http");
    if (i != std::string::npos) word = word.substr(0, i) + " __url__";
    std::string_view stripped = python_strip(word);
    if (!joined.empty()) joined.push_back(' ');
    joined.append(stripped);
  }
  // The official ' '.join(words) also puts a space between an empty first word and the next;
  // words are never empty here (split() tokens are non-empty, and a cut word keeps "__url__").
  txt = std::move(joined);
  // remove markdown URL
  static const RE2 md(R"(\[([^\]]*)\] \( *__url__ *\))");
  RE2::GlobalReplace(&txt, md, R"(\1)");
  // remove illegal char (per code point)
  txt = replace_all(txt, "__url__", "URL");
  std::string kept;
  kept.reserve(txt.size());
  for (size_t i = 0; i < txt.size();) {
    unsigned char c = static_cast<unsigned char>(txt[i]);
    size_t len = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    if (len == 1 && allowed(c)) kept.push_back(static_cast<char>(c));
    else kept.push_back(' ');
    i += len;
  }
  txt = replace_all(kept, "URL", "__url__");
  // TweetTokenizer(preserve_case=False).tokenize
  std::string safe = cut_hang(txt);
  re2::StringPiece in(safe);
  re2::StringPiece tok;
  std::string out = " ";
  bool first = true;
  while (RE2::FindAndConsume(&in, tweet_re(), &tok)) {
    if (tok.empty()) break;  // cannot happen (every alternative consumes), but never loop
    if (!first) out.push_back(' ');
    first = false;
    out.append(tok.data(), tok.size());
  }
  out.push_back(' ');
  out = replace_all(out, " won't ", " will n't ");
  out = replace_all(out, " can't ", " can n't ");
  for (const char* a : {"'s", "'m", "'re", "n't", "'ll", "'ve", "'d", "'em"})
    out = replace_all(out, std::string(a) + " ", std::string(" ") + a + " ");
  // strip and collapse (\s on ASCII)
  std::string res;
  res.reserve(out.size());
  bool pending = false;
  for (char c : out) {
    bool sp = c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
    if (sp) {
      pending = !res.empty();
      continue;
    }
    if (pending) res.push_back(' ');
    pending = false;
    res.push_back(c);
  }
  return res;
}

}  // namespace unieval::metrics
