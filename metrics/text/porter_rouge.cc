// Follows the structure of ROUGE-1.5.5's `sub stem` and `sub initialise` (research release, no OSI
// licence), ported by reading ROUGE-1.5.5.pl; no Perl code copied; see THIRD_PARTY_NOTICES.md.
// ROUGE-1.5.5's Porter stemmer. The regular expressions of that routine are evaluated here by hand
// on a consonant/vowel labelling that yields the same matches (the labelling is unique, so
// backtracking cannot pick another).
#include "metrics/text/porter_rouge.h"

#include <vector>

namespace unieval::metrics::text {

namespace {

bool is_aeiou(char c) { return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u'; }

// Labels of the script's patterns: c = [^aeiou], v = [aeiouy], C = c[^aeiouy]*, V = v[aeiou]*.
// A lower-case y directly after a consonant starts a vowel run; after a vowel it is a consonant.
// The initial y was upper-cased ('Y'), which is always a consonant.
std::vector<bool> vowel_labels(const std::string& w, size_t len) {
  std::vector<bool> vowel(len, false);
  for (size_t i = 0; i < len; ++i) {
    char ch = w[i];
    if (is_aeiou(ch))
      vowel[i] = true;
    else if (ch == 'y')
      vowel[i] = (i == 0) ? true : !vowel[i - 1];
    else
      vowel[i] = false;
  }
  return vowel;
}

// m of the prefix w[0, len): number of VC pairs in [C](VC)^m[V].
int measure(const std::string& w, size_t len) {
  std::vector<bool> v = vowel_labels(w, len);
  int m = 0;
  for (size_t i = 1; i < len; ++i)
    if (v[i - 1] && !v[i]) ++m;
  return m;
}

// $_v = ^(C)?v : the prefix contains a vowel.
bool has_vowel(const std::string& w, size_t len) {
  std::vector<bool> v = vowel_labels(w, len);
  for (size_t i = 0; i < len; ++i)
    if (v[i]) return true;
  return false;
}

// ^C v [^aeiouwxy]$ on the prefix w[0, len): a consonant run from the start, exactly one
// character of [aeiouy], then one final character outside [aeiouwxy].
bool whole_cvc(const std::string& w, size_t len) {
  if (len < 3) return false;
  // C = [^aeiou][^aeiouy]* must cover w[0, len-2).
  if (is_aeiou(w[0])) return false;
  for (size_t i = 1; i + 2 < len; ++i) {
    char ch = w[i];
    if (is_aeiou(ch) || ch == 'y') return false;
  }
  char v = w[len - 2];
  if (!(is_aeiou(v) || v == 'y')) return false;
  char last = w[len - 1];
  return !(is_aeiou(last) || last == 'w' || last == 'x' || last == 'y');
}

bool ends_with(const std::string& w, std::string_view s) {
  return w.size() >= s.size() && w.compare(w.size() - s.size(), s.size(), s) == 0;
}

struct Rule {
  std::string_view suffix;
  std::string_view replacement;
};

// Perl's leftmost match of /(a|b|...)$/ picks the longest listed suffix that ends the word.
const Rule* longest_match(const std::string& w, const Rule* rules, size_t n) {
  const Rule* best = nullptr;
  for (size_t i = 0; i < n; ++i)
    if (ends_with(w, rules[i].suffix) && (!best || rules[i].suffix.size() > best->suffix.size()))
      best = &rules[i];
  return best;
}

constexpr Rule kStep2[] = {
    {"ational", "ate"}, {"tional", "tion"}, {"enci", "ence"}, {"anci", "ance"}, {"izer", "ize"},
    {"bli", "ble"},     {"alli", "al"},     {"entli", "ent"}, {"eli", "e"},     {"ousli", "ous"},
    {"ization", "ize"}, {"ation", "ate"},   {"ator", "ate"},  {"alism", "al"},  {"iveness", "ive"},
    {"fulness", "ful"}, {"ousness", "ous"}, {"aliti", "al"},  {"iviti", "ive"}, {"biliti", "ble"},
    {"logi", "log"}};
constexpr Rule kStep3[] = {{"icate", "ic"}, {"ative", ""}, {"alize", "al"}, {"iciti", "ic"},
                           {"ical", "ic"},  {"ful", ""},   {"ness", ""}};
// Step 4 group as modified by CYL on 2004-02-14 (no -ment, no -ent).
constexpr Rule kStep4[] = {{"al", ""},    {"ance", ""}, {"ence", ""}, {"er", ""},
                           {"ic", ""},    {"able", ""}, {"ible", ""}, {"ant", ""},
                           {"ement", ""}, {"ou", ""},   {"ism", ""},  {"ate", ""},
                           {"iti", ""},   {"ous", ""},  {"ive", ""},  {"ize", ""}};

// Cuts `suffix` when the remaining stem has m > 1 (the script's $mgr1 test).
void cut_if_mgr1(std::string& w, size_t suffix_len) {
  size_t stem_len = w.size() - suffix_len;
  if (measure(w, stem_len) > 1) w.resize(stem_len);
}

}  // namespace

std::string rouge155_porter_stem(std::string_view input) {
  std::string w(input);
  if (w.size() < 3) return w;
  bool initial_y = w[0] == 'y';
  if (initial_y) w[0] = 'Y';

  // Step 1a
  if (ends_with(w, "sses") || ends_with(w, "ies")) {
    w.resize(w.size() - 2);
  } else if (w.size() >= 2 && w.back() == 's' && w[w.size() - 2] != 's') {
    w.pop_back();
  }
  // Step 1b
  if (ends_with(w, "eed")) {
    if (measure(w, w.size() - 3) > 0) w.pop_back();
  } else if (ends_with(w, "ed") || ends_with(w, "ing")) {
    size_t stem_len = w.size() - (ends_with(w, "ed") ? 2 : 3);
    if (has_vowel(w, stem_len)) {
      w.resize(stem_len);
      char last = w.empty() ? '\0' : w.back();
      if (ends_with(w, "at") || ends_with(w, "bl") || ends_with(w, "iz")) {
        w += 'e';
      } else if (w.size() >= 2 && last == w[w.size() - 2] && !is_aeiou(last) && last != 'y' &&
                 last != 'l' && last != 's' && last != 'z') {
        w.pop_back();
      } else if (whole_cvc(w, w.size())) {
        w += 'e';
      }
    }
  }
  // Step 1c
  if (!w.empty() && w.back() == 'y' && has_vowel(w, w.size() - 1)) w.back() = 'i';
  // Step 2
  if (const Rule* r = longest_match(w, kStep2, std::size(kStep2))) {
    size_t stem_len = w.size() - r->suffix.size();
    if (measure(w, stem_len) > 0) {
      w.resize(stem_len);
      w += r->replacement;
    }
  }
  // Step 3
  if (const Rule* r = longest_match(w, kStep3, std::size(kStep3))) {
    size_t stem_len = w.size() - r->suffix.size();
    if (measure(w, stem_len) > 0) {
      w.resize(stem_len);
      w += r->replacement;
    }
  }
  // Step 4, with the 2004 cascade: group, then -ment, then -ent (else -(s|t)ion).
  if (const Rule* r = longest_match(w, kStep4, std::size(kStep4))) cut_if_mgr1(w, r->suffix.size());
  if (ends_with(w, "ment")) cut_if_mgr1(w, 4);
  if (ends_with(w, "ent")) {
    cut_if_mgr1(w, 3);
  } else if (ends_with(w, "sion") || ends_with(w, "tion")) {
    cut_if_mgr1(w, 3);  // the s/t stays with the stem
  }
  // Step 5
  if (!w.empty() && w.back() == 'e') {
    size_t stem_len = w.size() - 1;
    int m = measure(w, stem_len);
    if (m > 1 || (m == 1 && !whole_cvc(w, stem_len))) w.resize(stem_len);
  }
  if (ends_with(w, "ll") && measure(w, w.size()) > 1) w.pop_back();

  if (initial_y) w[0] = 'y';
  return w;
}

}  // namespace unieval::metrics::text
