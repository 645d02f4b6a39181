#pragma once
// An allocator for large flat arrays (JSON text and node arrays, n-gram tables) that backs
// every allocation of 2 MiB or more with its own mapping in transparent huge pages.
//
// Why: on the VMs we run on, a first touch of a 4 KiB page costs ~3-15 us, so filling a 32 MB
// table costs tens of ms in page faults alone (more than all the counting it serves); with
// madvise(MADV_HUGEPAGE) the same memory arrives in 2 MiB pages, a few ms, and freed mappings
// are reused (below) without any fault. Smaller requests go to operator new: a mapping of its
// own would zero a whole 2 MiB page for each of them (a SQuAD run has a dozen such arrays of
// 100-500 KiB), while the CLI's heap is itself in huge pages (apps/unieval/main.cc) and packs
// them densely. Where the kernel has THP disabled, madvise fails harmlessly and we get
// ordinary pages (same results, only slower).
//
//   core::HugeVector<uint32_t> ids;   // a std::vector; reserve() large, then fill
//   ids.reserve(1 << 22);
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <new>
#include <utility>
#include <vector>

namespace unieval::core {

namespace detail {

constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kThreshold = size_t{2} << 20;  // smaller requests: operator new

inline size_t mapped_size(size_t bytes) { return (bytes + kHugePage - 1) & ~(kHugePage - 1); }

// A 2 MiB-aligned anonymous mapping of exactly `size` bytes, advised to use huge pages.
inline void* map_fresh(size_t size) {
  void* raw =
      ::mmap(nullptr, size + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  auto start = reinterpret_cast<uintptr_t>(raw);
  uintptr_t aligned = (start + kHugePage - 1) & ~(uintptr_t{kHugePage} - 1);
  // Give back the unaligned head and the unused tail, keeping [aligned, aligned + size).
  if (aligned > start) ::munmap(raw, aligned - start);
  size_t tail = (start + size + kHugePage) - (aligned + size);
  if (tail) ::munmap(reinterpret_cast<void*>(aligned + size), tail);
  void* p = reinterpret_cast<void*>(aligned);
  ::madvise(p, size, MADV_HUGEPAGE);
  return p;
}

// Freed mappings are kept (up to kCacheBytes) and handed out again: their pages are already
// faulted in, so a later buffer (the next file's text, the next order's table) costs nothing.
constexpr size_t kCacheBytes = size_t{64} << 20;
struct Cache {
  std::mutex mu;
  std::vector<std::pair<void*, size_t>> free;  // (address, mapped size)
  size_t bytes = 0;
};
inline Cache& cache() {
  static Cache* c = new Cache;  // never destroyed: deallocations may run during exit
  return *c;
}

inline void* map(size_t bytes) {
  size_t size = mapped_size(bytes);
  {
    Cache& c = cache();
    std::lock_guard<std::mutex> lock(c.mu);
    size_t best = c.free.size();  // the smallest cached mapping that is large enough
    for (size_t i = 0; i < c.free.size(); ++i)
      if (c.free[i].second >= size &&
          (best == c.free.size() || c.free[i].second < c.free[best].second))
        best = i;
    if (best < c.free.size()) {
      auto [p, have] = c.free[best];
      c.free.erase(c.free.begin() + static_cast<std::ptrdiff_t>(best));
      c.bytes -= size;
      // Hand out exactly `size` bytes (what unmap() will be told); the rest (a 2 MiB multiple,
      // so still aligned) stays cached for the next request.
      if (have > size) c.free.emplace_back(static_cast<char*>(p) + size, have - size);
      return p;
    }
  }
  return map_fresh(size);
}

inline void unmap(void* p, size_t bytes) {
  size_t size = mapped_size(bytes);
  {
    Cache& c = cache();
    std::lock_guard<std::mutex> lock(c.mu);
    if (c.bytes + size <= kCacheBytes) {
      c.free.emplace_back(p, size);
      c.bytes += size;
      return;
    }
  }
  ::munmap(p, size);
}

}  // namespace detail

template <class T>
struct HugePageAllocator {
  using value_type = T;
  HugePageAllocator() = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}

  T* allocate(size_t n) {
    if (n > static_cast<size_t>(-1) / sizeof(T)) throw std::bad_alloc();
    size_t bytes = n * sizeof(T);
    if (bytes < detail::kThreshold) return static_cast<T*>(::operator new(bytes));
    return static_cast<T*>(detail::map(bytes));
  }
  void deallocate(T* p, size_t n) noexcept {
    size_t bytes = n * sizeof(T);
    if (bytes < detail::kThreshold)
      ::operator delete(p);
    else
      detail::unmap(p, bytes);
  }
  template <class U>
  bool operator==(const HugePageAllocator<U>&) const noexcept {
    return true;
  }
  template <class U>
  bool operator!=(const HugePageAllocator<U>&) const noexcept {
    return false;
  }
};

template <class T>
using HugeVector = std::vector<T, HugePageAllocator<T>>;

}  // namespace unieval::core
