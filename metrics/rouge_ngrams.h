#pragma once
// Internal helpers shared by rouge.cc and rouge_score.cc (not a public API): sorted n-gram
// multisets over interned token ids (metrics/token_interner.h) and clipped hit counts.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/token_interner.h"

namespace unieval::metrics::rouge_detail {

// The n-grams of a token-id sequence as a sorted multiset. n <= 2: packed 64-bit keys;
// otherwise start indices into `seq`, ordered lexicographically by the n ids.
struct Grams {
  std::vector<uint64_t> keys;
  const std::vector<uint32_t>* seq = nullptr;
  int n = 1;
};

inline void make_ngrams(const std::vector<uint32_t>& t, int n, Grams& g) {
  g.n = n;
  g.seq = &t;
  g.keys.clear();
  if (static_cast<long>(t.size()) - n + 1 <= 0) return;
  size_t count = t.size() - n + 1;
  g.keys.resize(count);
  if (n == 1) {
    for (size_t i = 0; i < count; ++i) g.keys[i] = t[i];
    std::sort(g.keys.begin(), g.keys.end());
  } else if (n == 2) {
    for (size_t i = 0; i < count; ++i) g.keys[i] = (uint64_t(t[i]) << 32) | t[i + 1];
    std::sort(g.keys.begin(), g.keys.end());
  } else {
    for (size_t i = 0; i < count; ++i) g.keys[i] = i;
    std::sort(g.keys.begin(), g.keys.end(), [&](uint64_t a, uint64_t b) {
      return std::lexicographical_compare(t.begin() + a, t.begin() + a + n, t.begin() + b,
                                          t.begin() + b + n);
    });
  }
}

inline int compare_gram(const Grams& x, size_t a, const Grams& y, size_t b) {
  if (x.n <= 2) return x.keys[a] < y.keys[b] ? -1 : x.keys[a] > y.keys[b] ? 1 : 0;
  const auto& s = *x.seq;
  const auto& t = *y.seq;
  for (int k = 0; k < x.n; ++k) {
    uint32_t u = s[x.keys[a] + k], v = t[y.keys[b] + k];
    if (u != v) return u < v ? -1 : 1;
  }
  return 0;
}

// Sum over distinct grams of min(count in x, count in y).
inline long clipped_hits(const Grams& x, const Grams& y) {
  long hit = 0;
  size_t i = 0, j = 0;
  const size_t nx = x.keys.size(), ny = y.keys.size();
  while (i < nx && j < ny) {
    int c = compare_gram(x, i, y, j);
    if (c < 0) {
      ++i;
    } else if (c > 0) {
      ++j;
    } else {
      size_t i2 = i + 1, j2 = j + 1;
      while (i2 < nx && compare_gram(x, i, x, i2) == 0) ++i2;
      while (j2 < ny && compare_gram(y, j, y, j2) == 0) ++j2;
      hit += static_cast<long>(std::min(i2 - i, j2 - j));
      i = i2;
      j = j2;
    }
  }
  return hit;
}

}  // namespace unieval::metrics::rouge_detail
