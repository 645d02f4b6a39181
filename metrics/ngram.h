#pragma once
// Exact n-gram counting over interned tokens, shared by every BLEU flavour, NIST and anyone who
// needs clipped n-gram matches.
//
//   unieval::metrics::Vocabulary vocab;
//   std::vector<uint32_t> hyp = vocab.ids({"the", "cat"});
//   std::vector<uint32_t> ref = vocab.ids({"the", "cat", "sat"});
//   unieval::metrics::NgramClipper clip;
//   clip.run(hyp, {&ref}, /*max_order=*/4);
//   clip.matches(1);   // 2: clipped unigram matches (BLEU's "correct")
//   clip.hyp_total(2); // 1: hypothesis bigrams
//
// Why this design: an n-gram is never materialised as a string. Tokens are interned once into
// dense uint32 ids; inside one segment, the n-gram of order n starting at position i gets a
// per-segment id through an exact 64-bit key (id of its (n-1)-gram prefix, last token). Only the
// hypothesis n-grams are stored; a reference n-gram whose prefix is not a hypothesis n-gram cannot
// match and is dropped. All comparisons are exact (no hashing of n-grams into lossy keys).
//
// API stability: other components include this header; keep the public members below stable.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/token_interner.h"

namespace unieval::metrics {

// A span of token ids.
struct IdSpan {
  const uint32_t* data = nullptr;
  size_t size = 0;
  IdSpan() = default;
  IdSpan(const uint32_t* d, size_t n) : data(d), size(n) {}
  IdSpan(const std::vector<uint32_t>& v) : data(v.data()), size(v.size()) {}  // NOLINT
};

// Clipped n-gram statistics of one hypothesis against its references (orders 1..max_order).
// matches(n) = sum over distinct hypothesis n-grams g of min(count_hyp(g), max_r count_r(g)),
// which is the "modified precision" numerator of Papineni et al. and of every script here.
// The object keeps its buffers between calls: reuse one per thread.
class NgramClipper {
 public:
  void run(IdSpan hyp, const std::vector<IdSpan>& refs, int max_order);
  // Convenience for pointer-vectors.
  void run(IdSpan hyp, const std::vector<const std::vector<uint32_t>*>& refs, int max_order);

  int max_order() const { return max_order_; }
  // Clipped matches of order n (1-based).
  int64_t matches(int n) const { return matches_[n - 1]; }
  // Clipped matches of order n against reference r alone (0-based, in the order given to run):
  // sum over hypothesis n-grams g of min(count_hyp(g), count_r(g)).
  int64_t ref_matches(size_t r, int n) const { return ref_matches_[r * max_order_ + (n - 1)]; }
  // Number of hypothesis n-grams of order n: max(0, |hyp| - n + 1).
  int64_t hyp_total(int n) const { return hyp_total_[n - 1]; }

  // The distinct hypothesis n-grams of order n, each with its first start position in the
  // hypothesis, its count in the hypothesis and its maximum count over the references.
  struct Gram {
    uint32_t start;
    uint32_t hyp_count;
    uint32_t ref_max;
  };
  const std::vector<Gram>& grams(int n) const { return grams_[n - 1]; }
  // For each start position p of the hypothesis, the index into grams(n) of its n-gram
  // (size max(0, |hyp| - n + 1)).
  const std::vector<uint32_t>& positions(int n) const { return pos_ids_[n - 1]; }

 private:
  uint32_t lookup(uint64_t key) const;
  uint32_t insert(uint64_t key);
  void clear_table(size_t expected);

  int max_order_ = 0;
  std::vector<int64_t> matches_, hyp_total_;
  std::vector<int64_t> ref_matches_;  // [ref * max_order + n - 1]
  std::vector<std::vector<Gram>> grams_;
  std::vector<std::vector<uint32_t>> pos_ids_;
  // Open addressing over exact 64-bit keys. A slot belongs to the current table only when its
  // generation is gen_, so clearing the table for the next order or segment is ++gen_ (no
  // memset of the whole table per call).
  struct Slot {
    uint64_t key;
    uint32_t val;
    uint32_t gen;
  };
  std::vector<Slot> slots_;
  uint32_t gen_ = 0;
  size_t mask_ = 0;
  int shift_ = 64;  // 64 - log2(table size)
  // Fibonacci hashing: the top bits of key * 2^64/phi (one multiply; the tables are small and
  // per segment, the keys (prefix id, token) dense).
  size_t home(uint64_t key) const {
    return static_cast<size_t>((key * 0x9E3779B97F4A7C15ULL) >> shift_) & mask_;
  }
  size_t used_ = 0;
  std::vector<uint32_t> hyp_prev_;               // per-position id of the previous order
  std::vector<std::vector<uint32_t>> ref_prev_;  // same for each reference
  std::vector<uint32_t> ref_cnt_;                // count of each hyp n-gram in current ref
  std::vector<uint32_t> touched_;
};

}  // namespace unieval::metrics
