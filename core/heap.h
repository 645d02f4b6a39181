#pragma once
// The heap of a scoring process (the CLI; the Python module at import unless
// UNIEVAL_MALLOC_TUNING=0): scoring allocates tens of MB in many pieces and touches each page
// once, so keep allocations on the heap and never hand freed memory back (it is reused), grow the
// heap in 128 MiB steps, and ask for transparent huge pages on the first step, which then arrives
// in 2 MiB pages. Only speed changes (NIST on 20k segments: 437 -> 406 ms in the Python module);
// where THP is off, madvise fails harmlessly. A thread other than the main one allocates from an
// arena of its own, in ordinary pages.
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>

namespace unieval::core {

inline void tune_heap_for_scoring() {
  mallopt(M_MMAP_THRESHOLD, 512 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_TOP_PAD, 128 << 20);
  void* probe = std::malloc(size_t{1} << 20);  // larger than the free top: grows the heap (+ pad)
  constexpr size_t kHugePage = size_t{2} << 20;
  auto lo = (reinterpret_cast<uintptr_t>(probe) + kHugePage - 1) & ~(uintptr_t{kHugePage} - 1);
  auto hi = reinterpret_cast<uintptr_t>(sbrk(0)) & ~(uintptr_t{kHugePage} - 1);
  if (hi > lo) madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_HUGEPAGE);
  std::free(probe);
}

// The heap of a model process (unieval-model): a training step allocates and frees the same
// activation and gradient sizes (1-32 MB each for a BERT-base batch) every step. glibc's default
// maps each of them fresh (its mmap threshold rises only as far as the sizes it has seen freed)
// and trims the heap back, so every step faulted in ~0.8 GB of new pages (200k faults, 1-5 us
// each on these VMs). Kept on the heap and never handed back, a step reuses the previous step's
// pages: a 6-step BERT-base fine-tune on 2 cores went from 1.68M to 0.91-1.03M faults (45k a step
// after the first) and from 167 to 188-196 tokens/s, peak RSS +3% (#24). Blocks over 32 MiB
// (glibc's largest threshold) stay mappings of their own.
inline void tune_heap_for_models() {
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_TOP_PAD, 64 << 20);
}

}  // namespace unieval::core
