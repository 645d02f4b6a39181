// Follows DSTC7 (no code licence) and NLTK (Apache-2.0) behaviour; see THIRD_PARTY_NOTICES.md.
// DSTC7: behaviour only; no code taken, except the one pattern of `clean_str` that its output
// depends on (the markdown-link regular expression below). NLTK: the TweetTokenizer patterns are
// reproduced; no other code copied.
#include "metrics/text/dstc7_clean.h"

#include <re2/re2.h>

#include <vector>

#include "core/py_string.h"
#include "core/utf8.h"
#include "metrics/text/py_lower.h"

namespace unieval::metrics::text {

namespace {

bool allowed(char32_t c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '(' ||
         c == ')' || c == ':' || c == ',' || c == '.' || c == '!' || c == '?' || c == '"' ||
         c == '\'';
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
    std::string pat =
        std::string("(?i)(") + url2 + "|" + phone + "|" + emoticons + "|" + words + ")";
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
  std::string txt = py_lower(text);
  // url and tag
  std::string joined;
  for (std::string_view w : core::py_split(txt)) {
    std::string word(w);
    size_t i = word.find("http");
    if (i != std::string::npos) word = word.substr(0, i) + " __url__";
    std::string_view stripped = core::py_strip(word);
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
  txt = core::py_replace(txt, "__url__", "URL");
  std::string kept;
  kept.reserve(txt.size());
  for (size_t i = 0; i < txt.size();) {
    unsigned char c = static_cast<unsigned char>(txt[i]);
    size_t len = core::utf8_sequence_length(c);
    if (len == 1 && allowed(c))
      kept.push_back(static_cast<char>(c));
    else
      kept.push_back(' ');
    i += len;
  }
  txt = core::py_replace(kept, "URL", "__url__");
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
  out = core::py_replace(out, " won't ", " will n't ");
  out = core::py_replace(out, " can't ", " can n't ");
  for (const char* a : {"'s", "'m", "'re", "n't", "'ll", "'ve", "'d", "'em"})
    out = core::py_replace(out, std::string(a) + " ", std::string(" ") + a + " ");
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

}  // namespace unieval::metrics::text
