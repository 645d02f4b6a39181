#pragma once
// Internal helpers shared by rouge.cc and rouge_score.cc (not a public API): sorted n-gram
// multisets over interned token ids, clipped hit counts, and a string -> id table.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

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

// Open-addressing map from token text to a 32-bit value (no per-lookup allocation).
class TokenTable {
 public:
  TokenTable() { slots_.assign(1 << 12, Slot{}); }
  // Returns a pointer to the value for `key`, or nullptr.
  const uint32_t* find(std::string_view key) const {
    uint64_t h = hash(key);
    size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      const Slot& s = slots_[i];
      if (s.len == kEmpty) return nullptr;
      if (s.hash == h && s.len == key.size() && std::memcmp(pool_.data() + s.off, key.data(), key.size()) == 0)
        return &s.value;
    }
  }
  void insert(std::string_view key, uint32_t value) {
    if ((size_ + 1) * 2 > slots_.size()) grow();
    place(hash(key), append(key), static_cast<uint32_t>(key.size()), value);
    ++size_;
  }

 private:
  static constexpr uint32_t kEmpty = 0xFFFFFFFFu;
  struct Slot {
    uint64_t hash = 0;
    uint64_t off = 0;
    uint32_t len = kEmpty;
    uint32_t value = 0;
  };
  static uint64_t hash(std::string_view s) {
    uint64_t h = 1469598103934665603ULL;  // FNV-1a, then a final mix
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ULL;
    return h ^ (h >> 32);
  }
  uint64_t append(std::string_view key) {
    uint64_t off = pool_.size();
    pool_.append(key);
    return off;
  }
  void place(uint64_t h, uint64_t off, uint32_t len, uint32_t value) {
    size_t mask = slots_.size() - 1;
    size_t i = h & mask;
    while (slots_[i].len != kEmpty) i = (i + 1) & mask;
    slots_[i] = Slot{h, off, len, value};
  }
  void grow() {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(old.size() * 2, Slot{});
    for (const Slot& s : old)
      if (s.len != kEmpty) place(s.hash, s.off, s.len, s.value);
  }
  std::vector<Slot> slots_;
  std::string pool_;
  size_t size_ = 0;
};

}  // namespace unieval::metrics::rouge_detail
