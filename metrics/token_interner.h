#pragma once
// The token interner of every metric: token string -> dense 32-bit id in first-seen order.
//
//   metrics::TokenInterner vocab;                 // keeps its own copy of each new token
//   uint32_t a = vocab.intern("the");             // 0
//   uint32_t b = vocab.intern("cat");             // 1; intern("the") is 0 again
//   vocab.find("dog");                            // TokenInterner::kNone (not added)
//   vocab.text(b);                                // "cat"
//   metrics::TokenInterner views(TokenInterner::kViews);  // keeps views: text must outlive it
//
// | option  | default  | meaning                                                            |
// |---------|----------|--------------------------------------------------------------------|
// | storage | kCopies  | kCopies: new tokens are copied into an arena of fixed blocks (ids   |
// |         |          | and text() stay valid whatever the caller does with its strings);   |
// |         |          | kViews: only views are kept (the counting metrics, whose whole      |
// |         |          | corpus stays in memory)                                            |
//
// Open addressing over one flat array of (high half of the hash << 32 | id), load <= 1/2, so an
// id lookup costs no allocation and almost never a string comparison; tokens of up to 8 bytes
// compare as one word. Everything is inline: it sits in the inner loop of BLEU, chrF, NIST,
// ROUGE, Distinct and Entropy. Ids depend only on the order of first occurrence, never on the
// hash. (BLEU's Vocabulary, Distinct's TokenInterner and ROUGE's TokenTable were three tables.)
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace unieval::metrics {

namespace internal {

inline uint64_t mix64(uint64_t x) {  // murmur3 fmix64
  x ^= x >> 33;
  x *= 0xFF51AFD7ED558CCDULL;
  x ^= x >> 33;
  x *= 0xC4CEB9FE1A85EC53ULL;
  x ^= x >> 33;
  return x;
}

// Up to 8 bytes as a little-endian word (a loop, not a memcpy call of variable size).
inline uint64_t load_short(const char* p, size_t n) {
  uint64_t w = 0;
  for (size_t k = 0; k < n; ++k)
    w |= static_cast<uint64_t>(static_cast<unsigned char>(p[k])) << (8 * k);
  return w;
}

inline uint64_t hash_bytes(std::string_view s) {
  uint64_t h = 0x9E3779B97F4A7C15ULL ^ s.size();
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    h = (h ^ w) * 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 31;
  }
  if (i < s.size()) h = (h ^ load_short(s.data() + i, s.size() - i)) * 0x94D049BB133111EBULL;
  return mix64(h);
}

}  // namespace internal

class TokenInterner {
 public:
  enum Storage { kCopies, kViews };
  static constexpr uint32_t kNone = 0xFFFFFFFFu;  // find() of a token never added

  explicit TokenInterner(Storage storage = kCopies) : copies_(storage == kCopies) {}
  TokenInterner(TokenInterner&&) = default;
  TokenInterner& operator=(TokenInterner&&) = default;

  // Id of the token, adding it when new.
  uint32_t intern(std::string_view tok) {
    if ((strings_.size() + 1) * 2 > slots_.size()) grow();
    const uint64_t h = internal::hash_bytes(tok);
    const uint64_t tag = h >> 32;
    const size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      uint64_t slot = slots_[i];
      if (slot == kEmpty) {
        auto id = static_cast<uint32_t>(strings_.size());
        slots_[i] = (tag << 32) | id;
        strings_.push_back(copies_ ? keep(tok) : tok);
        hashes_.push_back(h);
        return id;
      }
      if ((slot >> 32) == tag) {
        auto id = static_cast<uint32_t>(slot);
        if (same(strings_[id], tok)) return id;
      }
    }
  }
  uint32_t id(std::string_view tok) { return intern(tok); }
  // Id of the token, or kNone when it was never added.
  uint32_t find(std::string_view tok) const {
    if (slots_.empty()) return kNone;
    const uint64_t h = internal::hash_bytes(tok);
    const uint64_t tag = h >> 32;
    const size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      uint64_t slot = slots_[i];
      if (slot == kEmpty) return kNone;
      if ((slot >> 32) == tag) {
        auto id = static_cast<uint32_t>(slot);
        if (same(strings_[id], tok)) return id;
      }
    }
  }
  // The token text of an id.
  std::string_view text(uint32_t id) const { return strings_[id]; }
  size_t size() const { return strings_.size(); }
  // Convenience: ids of several tokens.
  std::vector<uint32_t> ids(const std::vector<std::string_view>& tokens) { return ids_of(tokens); }
  std::vector<uint32_t> ids(const std::vector<std::string>& tokens) { return ids_of(tokens); }

 private:
  static constexpr uint64_t kEmpty = ~uint64_t{0};  // (an id of 2^32-1 is never reached)
  static constexpr size_t kBlock = size_t{1} << 16;
  static bool same(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    if (a.size() <= 8)
      return internal::load_short(a.data(), a.size()) == internal::load_short(b.data(), b.size());
    return std::memcmp(a.data(), b.data(), a.size()) == 0;
  }
  template <class Tokens>
  std::vector<uint32_t> ids_of(const Tokens& tokens) {
    std::vector<uint32_t> out;
    out.reserve(tokens.size());
    for (const auto& t : tokens) out.push_back(intern(t));
    return out;
  }
  // A copy of tok in the arena (blocks are never moved, so views into them stay valid).
  std::string_view keep(std::string_view tok) {
    if (tok.size() > left_) {
      size_t n = tok.size() > kBlock / 4 ? tok.size() : kBlock;
      blocks_.emplace_back(new char[n]);
      cur_ = blocks_.back().get();
      left_ = n;
    }
    char* p = cur_;
    if (!tok.empty()) std::memcpy(p, tok.data(), tok.size());
    cur_ += tok.size();
    left_ -= tok.size();
    return std::string_view(p, tok.size());
  }
  void grow() {
    size_t cap = slots_.empty() ? 1024 : slots_.size() * 2;
    slots_.assign(cap, kEmpty);
    size_t mask = cap - 1;
    for (uint32_t id = 0; id < strings_.size(); ++id) {
      size_t i = hashes_[id] & mask;
      while (slots_[i] != kEmpty) i = (i + 1) & mask;
      slots_[i] = ((hashes_[id] >> 32) << 32) | id;
    }
  }

  bool copies_;
  std::vector<uint64_t> slots_;  // (high half of the hash) << 32 | id; kEmpty = free
  std::vector<std::string_view> strings_;
  std::vector<uint64_t> hashes_;
  std::vector<std::unique_ptr<char[]>> blocks_;  // kCopies: the arena
  char* cur_ = nullptr;
  size_t left_ = 0;
};

// The name BLEU, chrF and NIST use.
using Vocabulary = TokenInterner;

}  // namespace unieval::metrics
