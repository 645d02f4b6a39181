// Follows the structure of NLTK's nltk/stem/porter.py (nltk 3.8; Apache-2.0): `stem`, `_step1a` ...
// `_step5b`, `_apply_rule_list`, `_measure`, ported by reading its source, no code copied (its
// irregular-forms table is reproduced as data); see THIRD_PARTY_NOTICES.md.
// NLTK PorterStemmer, NLTK_EXTENSIONS mode. `_apply_rule_list`: the first rule whose suffix ends
// the word decides, even when its condition fails; `_measure`: count of "vc" in the c/v string.
#include "metrics/text/porter_nltk.h"

#include <functional>
#include <vector>

namespace unieval::metrics::text {

namespace {

bool is_vowel_char(char c) { return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u'; }

// _is_consonant: y is a consonant at position 0 or after a vowel.
bool is_consonant(const std::string& w, size_t i) {
  bool cons = true;
  for (size_t k = 0; k <= i; ++k) {
    char ch = w[k];
    if (is_vowel_char(ch))
      cons = false;
    else if (ch == 'y')
      cons = (k == 0) ? true : !cons;
    else
      cons = true;
  }
  return cons;
}

int measure(const std::string& stem) {
  int m = 0;
  bool prev_vowel = false;
  bool cons = true;
  for (size_t k = 0; k < stem.size(); ++k) {
    char ch = stem[k];
    if (is_vowel_char(ch))
      cons = false;
    else if (ch == 'y')
      cons = (k == 0) ? true : !cons;
    else
      cons = true;
    if (k > 0 && prev_vowel && cons) ++m;
    prev_vowel = !cons;
  }
  return m;
}

bool contains_vowel(const std::string& stem) {
  for (size_t i = 0; i < stem.size(); ++i)
    if (!is_consonant(stem, i)) return true;
  return false;
}

bool ends_double_consonant(const std::string& w) {
  return w.size() >= 2 && w[w.size() - 1] == w[w.size() - 2] && is_consonant(w, w.size() - 1);
}

bool ends_cvc(const std::string& w) {
  size_t n = w.size();
  if (n >= 3 && is_consonant(w, n - 3) && !is_consonant(w, n - 2) && is_consonant(w, n - 1) &&
      w[n - 1] != 'w' && w[n - 1] != 'x' && w[n - 1] != 'y')
    return true;
  return n == 2 && !is_consonant(w, 0) && is_consonant(w, 1);
}

bool ends_with(const std::string& w, std::string_view s) {
  return w.size() >= s.size() && w.compare(w.size() - s.size(), s.size(), s) == 0;
}

std::string drop(const std::string& w, size_t n) { return w.substr(0, w.size() - n); }

using Cond = std::function<bool(const std::string& stem)>;
struct Rule {
  std::string suffix;  // "*d" = ends in a double consonant
  std::string replacement;
  Cond condition;  // empty = unconditional
};

std::string apply_rule_list(const std::string& word, const std::vector<Rule>& rules) {
  for (const Rule& r : rules) {
    if (r.suffix == "*d") {
      if (ends_double_consonant(word)) {
        std::string stem = drop(word, 2);
        if (!r.condition || r.condition(stem)) return stem + r.replacement;
        return word;
      }
      continue;
    }
    if (ends_with(word, r.suffix)) {
      std::string stem = drop(word, r.suffix.size());
      if (!r.condition || r.condition(stem)) return stem + r.replacement;
      return word;
    }
  }
  return word;
}

bool positive_measure(const std::string& s) { return measure(s) > 0; }
bool measure_gt1(const std::string& s) { return measure(s) > 1; }

std::string step1a(const std::string& w) {
  if (ends_with(w, "ies") && w.size() == 4) return drop(w, 3) + "ie";
  static const std::vector<Rule> rules = {
      {"sses", "ss", {}}, {"ies", "i", {}}, {"ss", "ss", {}}, {"s", "", {}}};
  return apply_rule_list(w, rules);
}

std::string step1b(const std::string& w) {
  if (ends_with(w, "ied")) return w.size() == 4 ? drop(w, 3) + "ie" : drop(w, 3) + "i";
  if (ends_with(w, "eed")) {
    std::string stem = drop(w, 3);
    return measure(stem) > 0 ? stem + "ee" : w;
  }
  std::string inter;
  bool ok = false;
  for (std::string_view suffix : {std::string_view("ed"), std::string_view("ing")}) {
    if (ends_with(w, suffix)) {
      inter = drop(w, suffix.size());
      if (contains_vowel(inter)) {
        ok = true;
        break;
      }
    }
  }
  if (!ok) return w;
  char last = inter.empty() ? '\0' : inter.back();
  std::vector<Rule> rules = {
      {"at", "ate", {}},
      {"bl", "ble", {}},
      {"iz", "ize", {}},
      {"*d", std::string(1, last),
       [last](const std::string&) { return last != 'l' && last != 's' && last != 'z'; }},
      {"", "e", [](const std::string& s) { return measure(s) == 1 && ends_cvc(s); }},
  };
  return apply_rule_list(inter, rules);
}

std::string step1c(const std::string& w) {
  static const std::vector<Rule> rules = {{"y", "i", [](const std::string& s) {
                                             return s.size() > 1 && is_consonant(s, s.size() - 1);
                                           }}};
  return apply_rule_list(w, rules);
}

std::string step2(const std::string& w) {
  if (ends_with(w, "alli") && positive_measure(drop(w, 4))) return step2(drop(w, 4) + "al");
  static const std::vector<Rule> base = {
      {"ational", "ate", positive_measure}, {"tional", "tion", positive_measure},
      {"enci", "ence", positive_measure},   {"anci", "ance", positive_measure},
      {"izer", "ize", positive_measure},    {"bli", "ble", positive_measure},
      {"alli", "al", positive_measure},     {"entli", "ent", positive_measure},
      {"eli", "e", positive_measure},       {"ousli", "ous", positive_measure},
      {"ization", "ize", positive_measure}, {"ation", "ate", positive_measure},
      {"ator", "ate", positive_measure},    {"alism", "al", positive_measure},
      {"iveness", "ive", positive_measure}, {"fulness", "ful", positive_measure},
      {"ousness", "ous", positive_measure}, {"aliti", "al", positive_measure},
      {"iviti", "ive", positive_measure},   {"biliti", "ble", positive_measure},
      {"fulli", "ful", positive_measure}};
  std::vector<Rule> rules = base;
  // "logi" -> "log": the condition looks at the word minus "ogi" (the l stays with the stem).
  std::string without_ogi = w.size() >= 3 ? drop(w, 3) : std::string();
  rules.push_back(
      {"logi", "log", [without_ogi](const std::string&) { return positive_measure(without_ogi); }});
  return apply_rule_list(w, rules);
}

std::string step3(const std::string& w) {
  static const std::vector<Rule> rules = {
      {"icate", "ic", positive_measure}, {"ative", "", positive_measure},
      {"alize", "al", positive_measure}, {"iciti", "ic", positive_measure},
      {"ical", "ic", positive_measure},  {"ful", "", positive_measure},
      {"ness", "", positive_measure}};
  return apply_rule_list(w, rules);
}

std::string step4(const std::string& w) {
  static const std::vector<Rule> rules = {{"al", "", measure_gt1},
                                          {"ance", "", measure_gt1},
                                          {"ence", "", measure_gt1},
                                          {"er", "", measure_gt1},
                                          {"ic", "", measure_gt1},
                                          {"able", "", measure_gt1},
                                          {"ible", "", measure_gt1},
                                          {"ant", "", measure_gt1},
                                          {"ement", "", measure_gt1},
                                          {"ment", "", measure_gt1},
                                          {"ent", "", measure_gt1},
                                          {"ion", "",
                                           [](const std::string& s) {
                                             return measure(s) > 1 && !s.empty() &&
                                                    (s.back() == 's' || s.back() == 't');
                                           }},
                                          {"ou", "", measure_gt1},
                                          {"ism", "", measure_gt1},
                                          {"ate", "", measure_gt1},
                                          {"iti", "", measure_gt1},
                                          {"ous", "", measure_gt1},
                                          {"ive", "", measure_gt1},
                                          {"ize", "", measure_gt1}};
  return apply_rule_list(w, rules);
}

std::string step5a(const std::string& w) {
  if (ends_with(w, "e")) {
    std::string stem = drop(w, 1);
    int m = measure(stem);
    if (m > 1) return stem;
    if (m == 1 && !ends_cvc(stem)) return stem;
  }
  return w;
}

std::string step5b(const std::string& w) {
  if (ends_with(w, "ll") && measure(drop(w, 1)) > 1) return drop(w, 1);
  return w;
}

}  // namespace

std::string nltk_porter_stem(std::string_view input) {
  std::string w(input);
  static const struct {
    const char* form;
    const char* stem;
  } kPool[] = {{"sky", "sky"},        {"skies", "sky"},        {"dying", "die"},
               {"lying", "lie"},      {"tying", "tie"},        {"news", "news"},
               {"innings", "inning"}, {"inning", "inning"},    {"outings", "outing"},
               {"outing", "outing"},  {"cannings", "canning"}, {"canning", "canning"},
               {"howe", "howe"},      {"proceed", "proceed"},  {"exceed", "exceed"},
               {"succeed", "succeed"}};
  for (const auto& p : kPool)
    if (w == p.form) return p.stem;
  if (w.size() <= 2) return w;
  w = step1a(w);
  w = step1b(w);
  w = step1c(w);
  w = step2(w);
  w = step3(w);
  w = step4(w);
  w = step5a(w);
  w = step5b(w);
  return w;
}

}  // namespace unieval::metrics::text
