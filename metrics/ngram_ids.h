#pragma once
// Exact n-gram ids for the counting metrics (Distinct-n, Entropy-n).
//
// Tokens are interned once into dense 32-bit ids in first-seen order (metrics::TokenInterner,
// token_interner.h). An n-gram
// of order n then gets its own dense id, also in first-seen order, from the pair (id of its
// (n-1)-gram prefix, id of its last token) (NgramLevels): two n-grams get the same id exactly
// when they are equal, for any n, and a 64-bit pair key never collides. Both tables are open
// addressing over flat arrays, so counting 500,000 n-grams costs no allocation per n-gram
// (the node-based std::unordered_map spent most of its time in malloc and page faults).
//
//   TokenInterner tok;  std::vector<uint32_t> ids, starts;     // segment s: ids[starts[s]..starts[s+1])
//   NgramLevels lv(ids, starts);                                // order 1 = the token ids
//   while (lv.order() < 4) lv.next();                           // lv.ids()[p]: id of the n-gram at p
//   lv.types();                                                 // distinct n-grams of this order
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "core/huge_pages.h"
#include "metrics/token_interner.h"

namespace unieval::metrics::internal {

// 64-bit key -> dense id in first-seen order (open addressing, linear probing).
class PairIdTable {
 public:
  // Sizes the table for up to `max_keys` keys without growing (load <= 1/2).
  void reset(size_t max_keys) {
    size_t cap = 16;
    while (cap < max_keys * 2) cap *= 2;
    if (slots_.size() != cap)
      slots_.assign(cap, Slot{0, kEmpty});
    else
      std::fill(slots_.begin(), slots_.end(), Slot{0, kEmpty});
    size_ = 0;
  }
  uint32_t intern(uint64_t key) {
    size_t mask = slots_.size() - 1;
    for (size_t i = mix64(key) & mask;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (s.id == kEmpty) {
        s.key = key;
        s.id = static_cast<uint32_t>(size_++);
        return s.id;
      }
      if (s.key == key) return s.id;
    }
  }
  size_t size() const { return size_; }
  // Starts loading the slot where `key` would be probed first (the table is larger than the
  // caches; the counting loops prefetch a few positions ahead).
  void prefetch(uint64_t key) const {
    __builtin_prefetch(&slots_[mix64(key) & (slots_.size() - 1)]);
  }

 private:
  static constexpr uint32_t kEmpty = 0xFFFFFFFFu;
  struct Slot {
    uint64_t key;
    uint32_t id;
  };
  core::HugeVector<Slot> slots_;
  size_t size_ = 0;
};

// The same with keys of at most 64 - id_bits bits packed with the id into one 64-bit slot
// (key << id_bits | id + 1; 0 = free): half the memory of PairIdTable, so fewer cache misses.
class PackedPairIdTable {
 public:
  void reset(size_t max_keys, int id_bits) {
    size_t cap = 16;
    while (cap < max_keys * 2) cap *= 2;
    if (slots_.size() != cap)
      slots_.assign(cap, 0);
    else
      std::fill(slots_.begin(), slots_.end(), 0);
    id_bits_ = id_bits;
    size_ = 0;
  }
  uint32_t intern(uint64_t key) {
    size_t mask = slots_.size() - 1;
    const uint64_t id_mask = (uint64_t{1} << id_bits_) - 1;
    for (size_t i = mix64(key) & mask;; i = (i + 1) & mask) {
      uint64_t s = slots_[i];
      if (s == 0) {
        slots_[i] = (key << id_bits_) | (size_ + 1);
        return static_cast<uint32_t>(size_++);
      }
      if ((s >> id_bits_) == key) return static_cast<uint32_t>((s & id_mask) - 1);
    }
  }
  size_t size() const { return size_; }
  void prefetch(uint64_t key) const {
    __builtin_prefetch(&slots_[mix64(key) & (slots_.size() - 1)]);
  }

 private:
  core::HugeVector<uint64_t> slots_;
  int id_bits_ = 32;
  size_t size_ = 0;
};

// Bits needed to write the values 0..n-1 (at least 1).
inline int bits_for(size_t n) {
  int b = 1;
  while (b < 64 && (size_t{1} << b) < n) ++b;
  return b;
}

// The n-gram ids of a tokenised corpus, one order at a time. ids()[p] is the id of the n-gram
// starting at token position p, for the positions p of segment s with p + n <= starts[s+1];
// ids are dense, assigned in corpus order (segment by segment, left to right), so id order is
// the first-seen order a Python dict of the n-grams would iterate in.
class NgramLevels {
 public:
  // ids: the token ids of all segments back to back; starts: segment boundaries (size segs+1).
  // allow_packed = false forces the 128-bit-slot table (tests compare the two).
  NgramLevels(core::HugeVector<uint32_t> token_ids, std::vector<uint32_t> starts,
              size_t n_token_types, bool allow_packed = true)
      : tok_(std::move(token_ids)),
        starts_(std::move(starts)),
        cur_(tok_),
        types_(n_token_types),
        vocab_(n_token_types),
        allow_packed_(allow_packed) {}

  int order() const { return order_; }
  const core::HugeVector<uint32_t>& ids() const { return cur_; }
  const std::vector<uint32_t>& starts() const { return starts_; }
  size_t segments() const { return starts_.empty() ? 0 : starts_.size() - 1; }
  size_t types() const { return types_; }  // distinct n-grams of the current order

  // Moves to order n+1: id(prefix n-gram, last token) for every position that has one.
  void next() {
    ++order_;
    size_t positions = 0;
    for (size_t s = 0; s + 1 < starts_.size(); ++s) {
      size_t len = starts_[s + 1] - starts_[s];
      if (len >= static_cast<size_t>(order_)) positions += len - order_ + 1;
    }
    // Key = (id of the (n-1)-gram, id of the last token): prefix ids < types_, token ids
    // < vocab_, new ids < positions.
    const int tok_bits = bits_for(vocab_), prefix_bits = bits_for(types_),
              id_bits = bits_for(positions + 1);
    if (allow_packed_ && tok_bits + prefix_bits + id_bits <= 64) {
      packed_.reset(positions, id_bits);
      assign_ids(packed_, tok_bits);
      types_ = packed_.size();
    } else {
      table_.reset(positions);
      assign_ids(table_, 32);
      types_ = table_.size();
    }
  }

 private:
  core::HugeVector<uint32_t> tok_;
  std::vector<uint32_t> starts_;
  core::HugeVector<uint32_t> cur_;
  size_t types_ = 0;
  size_t vocab_ = 0;
  bool allow_packed_ = true;
  int order_ = 1;
  PairIdTable table_;
  PackedPairIdTable packed_;

  template <class Table>
  void assign_ids(Table& table, int tok_shift) {
    const size_t last =
        tok_.size() - std::min<size_t>(tok_.size(), order_ - 1);  // positions with a key
    auto key = [&](size_t p) {
      return (static_cast<uint64_t>(cur_[p]) << tok_shift) | tok_[p + order_ - 1];
    };
    constexpr size_t kAhead = 16;
    for (size_t s = 0; s + 1 < starts_.size(); ++s) {
      size_t b = starts_[s], e = starts_[s + 1];
      for (size_t p = b; p + order_ <= e; ++p) {
        // cur_[p + kAhead] still holds its (n-1)-gram id: the key it will be looked up with.
        if (p + kAhead < last) table.prefetch(key(p + kAhead));
        cur_[p] = table.intern(key(p));
      }
    }
  }
};

// NgramLevels of pre-tokenised segments.
inline NgramLevels levels_of_segments(const std::vector<std::vector<std::string>>& segments,
                                      bool allow_packed = true) {
  TokenInterner interner(TokenInterner::kViews);
  core::HugeVector<uint32_t> ids;
  std::vector<uint32_t> starts;
  starts.reserve(segments.size() + 1);
  starts.push_back(0);
  for (const auto& seg : segments) {
    for (const auto& tok : seg) ids.push_back(interner.intern(tok));
    starts.push_back(static_cast<uint32_t>(ids.size()));
  }
  return NgramLevels(std::move(ids), std::move(starts), interner.size(), allow_packed);
}

}  // namespace unieval::metrics::internal
