// Follows Snowball (BSD-3-Clause) behaviour; no code copied; see THIRD_PARTY_NOTICES.md.
// Snowball English (Porter2) stemmer, from the published algorithm description. Step names follow
// the description (prelude, mark_regions, Step_1a ... Step_5, postlude, exception1/2) so the code
// can be checked against it line by line.
#include "metrics/text/snowball_english.h"

#include <cstdint>

#include "core/utf8.h"

namespace unieval::metrics::text {

namespace {

using U16 = std::u16string;

bool is_v(char16_t c) {
  return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' || c == 'y';
}

bool ends_with(const U16& w, const char* s) {
  size_t n = 0;
  while (s[n]) ++n;
  if (w.size() < n) return false;
  for (size_t i = 0; i < n; ++i)
    if (w[w.size() - n + i] != static_cast<char16_t>(s[i])) return false;
  return true;
}

bool equals(const U16& w, const char* s) {
  size_t n = 0;
  while (s[n]) ++n;
  return w.size() == n && ends_with(w, s);
}

void replace_suffix(U16& w, size_t suffix_len, const char* by) {
  w.resize(w.size() - suffix_len);
  for (const char* p = by; *p; ++p) w.push_back(static_cast<char16_t>(*p));
}

// Longest entry of `list` (nullptr-terminated) that ends w; -1 when none.
int longest_suffix(const U16& w, const char* const* list) {
  int best = -1;
  size_t best_len = 0;
  for (int i = 0; list[i]; ++i) {
    size_t n = 0;
    while (list[i][n]) ++n;
    if ((best < 0 || n > best_len) && ends_with(w, list[i])) {
      best = i;
      best_len = n;
    }
  }
  return best;
}

size_t len_of(const char* s) {
  size_t n = 0;
  while (s[n]) ++n;
  return n;
}

// "short syllable" ending at position end (exclusive): non-v_WXY v non-v, or non-v v at the start.
bool shortv(const U16& w, size_t end) {
  if (end >= 3) {
    char16_t c1 = w[end - 1], c2 = w[end - 2], c3 = w[end - 3];
    if (!is_v(c1) && c1 != 'w' && c1 != 'x' && c1 != 'Y' && is_v(c2) && !is_v(c3)) return true;
  }
  if (end == 2) return !is_v(w[1]) && is_v(w[0]);
  return false;
}

bool exception1(U16& w) {
  static const char* const kFrom[] = {"skis",   "skies", "dying", "lying", "tying",  "idly",
                                      "gently", "ugly",  "early", "only",  "singly", nullptr};
  static const char* const kTo[] = {"ski",   "sky",  "die",   "lie",  "tie",  "idl",
                                    "gentl", "ugli", "earli", "onli", "singl"};
  static const char* const kInvariant[] = {"sky",    "news", "howe",  "atlas",
                                           "cosmos", "bias", "andes", nullptr};
  for (int i = 0; kFrom[i]; ++i)
    if (equals(w, kFrom[i])) {
      w.clear();
      replace_suffix(w, 0, kTo[i]);
      return true;
    }
  for (int i = 0; kInvariant[i]; ++i)
    if (equals(w, kInvariant[i])) return true;
  return false;
}

bool exception2(const U16& w) {
  static const char* const kWords[] = {"inning",  "outing", "canning", "herring", "earring",
                                       "proceed", "exceed", "succeed", nullptr};
  for (int i = 0; kWords[i]; ++i)
    if (equals(w, kWords[i])) return true;
  return false;
}

struct Regions {
  size_t p1, p2;
};

Regions mark_regions(const U16& w) {
  size_t n = w.size();
  Regions r{n, n};
  // gopast v, gopast non-v from `from`; returns the position after the non-vowel or npos.
  auto next_region = [&](size_t from) -> size_t {
    size_t i = from;
    while (i < n && !is_v(w[i])) ++i;
    if (i >= n) return std::u16string::npos;
    ++i;
    while (i < n && is_v(w[i])) ++i;
    if (i >= n) return std::u16string::npos;
    return i + 1;
  };
  size_t p1 = std::u16string::npos;
  static const char* const kPrefixes[] = {"gener", "commun", "arsen", nullptr};
  for (int i = 0; kPrefixes[i]; ++i) {
    size_t len = len_of(kPrefixes[i]);
    if (n >= len && w.compare(0, len, U16(kPrefixes[i], kPrefixes[i] + len)) == 0) {
      p1 = len;
      break;
    }
  }
  if (p1 == std::u16string::npos) p1 = next_region(0);
  if (p1 == std::u16string::npos) return r;
  r.p1 = p1;
  size_t p2 = next_region(p1);
  if (p2 != std::u16string::npos) r.p2 = p2;
  return r;
}

void step_1a(U16& w) {
  if (ends_with(w, "'s'"))
    w.resize(w.size() - 3);
  else if (ends_with(w, "'s"))
    w.resize(w.size() - 2);
  else if (ends_with(w, "'"))
    w.resize(w.size() - 1);
  static const char* const kList[] = {"sses", "ied", "ies", "s", "us", "ss", nullptr};
  int k = longest_suffix(w, kList);
  if (k < 0) return;
  size_t start = w.size() - len_of(kList[k]);
  switch (k) {
    case 0:
      replace_suffix(w, 4, "ss");
      break;
    case 1:
    case 2:
      replace_suffix(w, 3, start >= 2 ? "i" : "ie");
      break;
    case 3: {
      // next gopast v: a vowel before the letter that precedes the s.
      if (start < 1) return;
      for (size_t i = 0; i + 1 < start; ++i)
        if (is_v(w[i])) {
          w.resize(w.size() - 1);
          return;
        }
      break;
    }
    default:
      break;  // us, ss: unchanged
  }
}

void step_1b(U16& w, const Regions& r) {
  static const char* const kList[] = {"eed", "eedly", "ed", "edly", "ing", "ingly", nullptr};
  int k = longest_suffix(w, kList);
  if (k < 0) return;
  size_t start = w.size() - len_of(kList[k]);
  if (k <= 1) {
    if (start >= r.p1) replace_suffix(w, len_of(kList[k]), "ee");
    return;
  }
  bool vowel = false;
  for (size_t i = 0; i < start; ++i) vowel |= is_v(w[i]);
  if (!vowel) return;
  w.resize(start);
  static const char* const kAdd[] = {"at", "bl", "iz", nullptr};
  static const char* const kDouble[] = {"bb", "dd", "ff", "gg", "mm",
                                        "nn", "pp", "rr", "tt", nullptr};
  if (longest_suffix(w, kAdd) >= 0) {
    w.push_back('e');
  } else if (longest_suffix(w, kDouble) >= 0) {
    w.pop_back();
  } else if (w.size() == r.p1 && shortv(w, w.size())) {
    w.push_back('e');
  }
}

void step_1c(U16& w) {
  size_t n = w.size();
  if (n < 3) return;  // needs a non-vowel that is not the first letter before the y
  if (w[n - 1] != 'y' && w[n - 1] != 'Y') return;
  if (is_v(w[n - 2])) return;
  w[n - 1] = 'i';
}

void step_2(U16& w, const Regions& r) {
  static const char* const kList[] = {
      "tional", "enci",  "anci",  "abli",  "entli",   "izer",  "ization", "ational", "ation",
      "ator",   "alism", "aliti", "alli",  "fulness", "ousli", "ousness", "iveness", "iviti",
      "biliti", "bli",   "ogi",   "fulli", "lessli",  "li",    nullptr};
  static const char* const kTo[] = {"tion", "ence", "ance", "able", "ent", "ize", "ize",  "ate",
                                    "ate",  "ate",  "al",   "al",   "al",  "ful", "ous",  "ous",
                                    "ive",  "ive",  "ble",  "ble",  "og",  "ful", "less", ""};
  int k = longest_suffix(w, kList);
  if (k < 0) return;
  size_t len = len_of(kList[k]);
  size_t start = w.size() - len;
  if (start < r.p1) return;
  if (k == 20) {
    if (start < 1 || w[start - 1] != 'l') return;
  } else if (k == 23) {
    if (start < 1) return;
    char16_t c = w[start - 1];
    static const char kValidLi[] = "cdeghkmnrt";
    bool ok = false;
    for (const char* p = kValidLi; *p; ++p) ok |= (c == static_cast<char16_t>(*p));
    if (!ok) return;
  }
  replace_suffix(w, len, kTo[k]);
}

void step_3(U16& w, const Regions& r) {
  static const char* const kList[] = {"tional", "ational", "alize", "icate", "iciti",
                                      "ical",   "ful",     "ness",  "ative", nullptr};
  static const char* const kTo[] = {"tion", "ate", "al", "ic", "ic", "ic", "", "", ""};
  int k = longest_suffix(w, kList);
  if (k < 0) return;
  size_t len = len_of(kList[k]);
  size_t start = w.size() - len;
  if (start < r.p1) return;
  if (k == 8 && start < r.p2) return;  // ative: R2 as well
  replace_suffix(w, len, kTo[k]);
}

void step_4(U16& w, const Regions& r) {
  static const char* const kList[] = {"al",  "ance",  "ence", "er",  "ic",   "able", "ible",
                                      "ant", "ement", "ment", "ent", "ism",  "ate",  "iti",
                                      "ous", "ive",   "ize",  "ion", nullptr};
  int k = longest_suffix(w, kList);
  if (k < 0) return;
  size_t len = len_of(kList[k]);
  size_t start = w.size() - len;
  if (start < r.p2) return;
  if (k == 17) {
    if (start < 1 || (w[start - 1] != 's' && w[start - 1] != 't')) return;
  }
  w.resize(start);
}

void step_5(U16& w, const Regions& r) {
  if (w.empty()) return;
  size_t start = w.size() - 1;
  if (w.back() == 'e') {
    if (start >= r.p2 || (start >= r.p1 && !shortv(w, start))) w.pop_back();
  } else if (w.back() == 'l') {
    if (start >= r.p2 && start >= 1 && w[start - 1] == 'l') w.pop_back();
  }
}

}  // namespace

std::u16string snowball_english_stem_u16(std::u16string w) {
  if (exception1(w)) return w;
  if (w.size() < 3) return w;
  // prelude
  if (!w.empty() && w[0] == '\'') w.erase(0, 1);
  bool y_found = false;
  if (!w.empty() && w[0] == 'y') {
    w[0] = 'Y';
    y_found = true;
  }
  for (size_t i = 1; i < w.size(); ++i)
    if (w[i] == 'y' && is_v(w[i - 1])) {
      w[i] = 'Y';
      y_found = true;
    }
  Regions r = mark_regions(w);
  step_1a(w);
  if (!exception2(w)) {
    step_1b(w, r);
    step_1c(w);
    step_2(w, r);
    step_3(w, r);
    step_4(w, r);
    step_5(w, r);
  }
  if (y_found)
    for (auto& c : w)
      if (c == 'Y') c = 'y';
  return w;
}

namespace {

// UTF-8 -> UTF-16; an invalid byte maps to U+DC00+byte (a lone surrogate) so that it round-trips.
std::u16string to_u16(std::string_view s) {
  std::u16string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    auto b = static_cast<unsigned char>(s[i]);
    uint32_t cp = 0;
    size_t len = 0;
    if (b < 0x80) {
      cp = b;
      len = 1;
    } else if ((b >> 5) == 6) {
      cp = b & 0x1F;
      len = 2;
    } else if ((b >> 4) == 14) {
      cp = b & 0x0F;
      len = 3;
    } else if ((b >> 3) == 30) {
      cp = b & 0x07;
      len = 4;
    }
    bool ok = len > 0 && i + len <= s.size();
    for (size_t k = 1; ok && k < len; ++k) {
      auto c = static_cast<unsigned char>(s[i + k]);
      if ((c >> 6) != 2)
        ok = false;
      else
        cp = (cp << 6) | (c & 0x3F);
    }
    if (!ok) {
      out.push_back(static_cast<char16_t>(0xDC00 + b));
      ++i;
      continue;
    }
    if (cp >= 0x10000) {
      cp -= 0x10000;
      out.push_back(static_cast<char16_t>(0xD800 + (cp >> 10)));
      out.push_back(static_cast<char16_t>(0xDC00 + (cp & 0x3FF)));
    } else {
      out.push_back(static_cast<char16_t>(cp));
    }
    i += len;
  }
  return out;
}

std::string to_u8(const std::u16string& s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    uint32_t cp = s[i];
    if (cp >= 0xD800 && cp < 0xDC00 && i + 1 < s.size() && s[i + 1] >= 0xDC00 &&
        s[i + 1] < 0xE000) {
      cp = 0x10000 + ((cp - 0xD800) << 10) + (s[i + 1] - 0xDC00);
      ++i;
    } else if (cp >= 0xDC00 && cp < 0xDD00) {
      out.push_back(static_cast<char>(cp - 0xDC00));  // an invalid input byte, restored
      continue;
    }
    core::append_utf8(out, cp);
  }
  return out;
}

}  // namespace

std::string snowball_english_stem(std::string_view word) {
  bool ascii = true;
  for (char c : word) ascii &= static_cast<unsigned char>(c) < 0x80;
  if (ascii) {
    std::u16string w(word.begin(), word.end());
    std::u16string s = snowball_english_stem_u16(std::move(w));
    return std::string(s.begin(), s.end());
  }
  return to_u8(snowball_english_stem_u16(to_u16(word)));
}

}  // namespace unieval::metrics::text
