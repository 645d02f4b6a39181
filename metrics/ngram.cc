#include "metrics/ngram.h"

#include <algorithm>

namespace unieval::metrics {

// ---------------------------------------------------------------------------------------------

void NgramClipper::clear_table(size_t expected) {
  size_t cap = 16;
  while (cap < expected * 2 + 8) cap <<= 1;
  if (slots_.size() < cap) slots_.resize(cap, Slot{0, 0, 0});
  if (++gen_ == 0) {  // generations wrapped: forget every slot once
    for (Slot& s : slots_) s.gen = 0;
    gen_ = 1;
  }
  mask_ = cap - 1;  // the table is slots_[0, cap)
  shift_ = 64;
  for (size_t c = cap; c > 1; c >>= 1) --shift_;
  used_ = 0;
}

uint32_t NgramClipper::lookup(uint64_t key) const {
  for (size_t i = home(key);; i = (i + 1) & mask_) {
    const Slot& s = slots_[i];
    if (s.gen != gen_) return Vocabulary::kNone;
    if (s.key == key) return s.val;
  }
}

uint32_t NgramClipper::insert(uint64_t key) {
  for (size_t i = home(key);; i = (i + 1) & mask_) {
    Slot& s = slots_[i];
    if (s.gen != gen_) {
      s = Slot{key, static_cast<uint32_t>(used_), gen_};
      return static_cast<uint32_t>(used_++);
    }
    if (s.key == key) return s.val;
  }
}

void NgramClipper::run(IdSpan hyp, const std::vector<const std::vector<uint32_t>*>& refs,
                       int max_order) {
  std::vector<IdSpan> spans;
  spans.reserve(refs.size());
  for (const auto* r : refs) spans.emplace_back(*r);
  run(hyp, spans, max_order);
}

void NgramClipper::run(IdSpan hyp, const std::vector<IdSpan>& refs, int max_order) {
  max_order_ = max_order;
  matches_.assign(max_order, 0);
  hyp_total_.assign(max_order, 0);
  if (grams_.size() < static_cast<size_t>(max_order)) grams_.resize(max_order);
  if (pos_ids_.size() < static_cast<size_t>(max_order)) pos_ids_.resize(max_order);
  for (int n = 0; n < max_order; ++n) {
    grams_[n].clear();
    pos_ids_[n].clear();
  }
  ref_matches_.assign(refs.size() * max_order, 0);
  hyp_prev_.assign(hyp.size, 0);
  if (ref_prev_.size() < refs.size()) ref_prev_.resize(refs.size());
  for (size_t r = 0; r < refs.size(); ++r) ref_prev_[r].assign(refs[r].size, 0);

  for (int n = 1; n <= max_order; ++n) {
    if (hyp.size < static_cast<size_t>(n)) break;
    size_t count = hyp.size - n + 1;
    hyp_total_[n - 1] = static_cast<int64_t>(count);
    clear_table(count);
    auto& grams = grams_[n - 1];
    // Hypothesis n-grams: key = (id of prefix (n-1)-gram) << 32 | last token. Written through
    // raw pointers into buffers sized to the upper bound (count), then trimmed: a push_back of a
    // Gram here cost a store-forwarding stall per n-gram.
    grams.resize(count);
    pos_ids_[n - 1].resize(count);
    Gram* g = grams.data();
    uint32_t* pos = pos_ids_[n - 1].data();
    uint32_t* prev = hyp_prev_.data();
    uint32_t distinct = 0;
    for (size_t i = 0; i < count; ++i) {
      uint64_t key =
          n == 1 ? hyp.data[i] : (static_cast<uint64_t>(prev[i]) << 32) | hyp.data[i + n - 1];
      uint32_t id = insert(key);
      if (id == distinct) {
        g[id].start = static_cast<uint32_t>(i);
        g[id].hyp_count = 0;
        g[id].ref_max = 0;
        ++distinct;
      }
      g[id].hyp_count++;
      prev[i] = id;
      pos[i] = id;
    }
    grams.resize(distinct);
    ref_cnt_.assign(grams.size(), 0);
    for (size_t r = 0; r < refs.size(); ++r) {
      const IdSpan& ref = refs[r];
      auto& prev = ref_prev_[r];
      if (ref.size < static_cast<size_t>(n)) continue;
      size_t rc = ref.size - n + 1;
      touched_.clear();
      for (size_t i = 0; i < rc; ++i) {
        uint32_t id;
        if (n == 1) {
          id = lookup(ref.data[i]);
        } else if (prev[i] == Vocabulary::kNone) {
          id = Vocabulary::kNone;  // prefix is not a hypothesis n-gram: cannot match
        } else {
          id = lookup((static_cast<uint64_t>(prev[i]) << 32) | ref.data[i + n - 1]);
        }
        prev[i] = id;
        if (id == Vocabulary::kNone) continue;
        if (ref_cnt_[id]++ == 0) touched_.push_back(id);
      }
      int64_t own = 0;  // this reference's clipped matches
      for (uint32_t id : touched_) {
        grams[id].ref_max = std::max(grams[id].ref_max, ref_cnt_[id]);
        own += std::min(grams[id].hyp_count, ref_cnt_[id]);
        ref_cnt_[id] = 0;
      }
      ref_matches_[r * max_order + (n - 1)] = own;
    }
    int64_t m = 0;
    for (const auto& g : grams) m += std::min(g.hyp_count, g.ref_max);
    matches_[n - 1] = m;
  }
}

}  // namespace unieval::metrics
