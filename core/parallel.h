#pragma once
// The small thread helpers the metrics share: how many workers a `threads` option means, a
// parallel loop over contiguous ranges, and two jobs run side by side. Work is split so that
// results never depend on the number of threads (each index is computed the same way by
// whichever worker owns it; callers sum in index order afterwards).
//
//   int t = unieval::core::resolve_threads(opts.threads);           // 0 -> all cores (at most 8)
//   unieval::core::parallel_ranges(n, t, [&](size_t b, size_t e) { for (i = b; i < e; ++i) ...; });
//   unieval::core::parallel_chunks(n, t, 64, [&](size_t b, size_t e, int worker) { ... });
//   unieval::core::run_concurrently([&] { data = load(a); }, [&] { preds = load(b); });
//
// Exceptions (parallel_ranges, run_concurrently): the one from the lowest range (or from the
// first job) is rethrown after every worker has finished, so the error a user sees is the one
// a sequential run would have hit first whenever the work items fail independently.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace unieval::core {

// threads <= 0: the hardware threads, at most 8; otherwise threads itself.
inline int resolve_threads(int threads) {
  if (threads > 0) return threads;
  int hw = static_cast<int>(std::thread::hardware_concurrency());
  return std::max(1, std::min(8, hw));
}

// body(begin, end) on `threads` contiguous slices of [0, n); slice t runs on worker t (slice 0 on
// the calling thread). Fewer workers when n is small (at least min_per_thread items each).
template <class Body>
void parallel_ranges(size_t n, int threads, Body&& body, size_t min_per_thread = 256) {
  size_t workers = std::max<size_t>(1, std::min<size_t>(static_cast<size_t>(std::max(threads, 1)),
                                                        n / std::max<size_t>(min_per_thread, 1)));
  if (workers == 1) {
    body(size_t{0}, n);
    return;
  }
  std::vector<std::exception_ptr> errors(workers);
  auto slice = [&](size_t t) {
    try {
      body(n * t / workers, n * (t + 1) / workers);
    } catch (...) {
      errors[t] = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(workers - 1);
  for (size_t t = 1; t < workers; ++t) pool.emplace_back(slice, t);
  slice(0);
  for (auto& th : pool) th.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

// body(begin, end, worker) over chunks of [0, n) handed out to whichever worker is free (for
// items of uneven cost); worker is in [0, threads), so callers can keep per-worker scratch
// space. Runs on the calling thread alone when threads <= 1 or n < 2 * chunk. When chunks fail,
// one of their exceptions is rethrown (which one is not fixed: use parallel_ranges where the
// error a user sees must not depend on timing).
template <class Body>
void parallel_chunks(size_t n, int threads, size_t chunk, Body&& body) {
  chunk = std::max<size_t>(chunk, 1);
  if (threads <= 1 || n < 2 * chunk) {
    body(size_t{0}, n, 0);
    return;
  }
  std::atomic<size_t> next{0};
  std::vector<std::exception_ptr> errors(static_cast<size_t>(threads));
  auto work = [&](int worker) {
    try {
      for (;;) {
        size_t b = next.fetch_add(chunk);
        if (b >= n) break;
        body(b, std::min(n, b + chunk), worker);
      }
    } catch (...) {
      errors[static_cast<size_t>(worker)] = std::current_exception();
      next.store(n);  // the others stop at their next chunk
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(static_cast<size_t>(threads) - 1);
  for (int t = 1; t < threads; ++t) pool.emplace_back(work, t);
  work(0);
  for (auto& th : pool) th.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

// first() on the calling thread while second() runs on a new one; both always finish. When
// parallel is false they run one after the other, as straight-line code (a failing first()
// stops there).
template <class First, class Second>
void run_concurrently(First&& first, Second&& second, bool parallel = true) {
  if (!parallel) {
    first();
    second();
    return;
  }
  std::exception_ptr second_error;
  std::thread worker([&] {
    try {
      second();
    } catch (...) {
      second_error = std::current_exception();
    }
  });
  std::exception_ptr first_error;
  try {
    first();
  } catch (...) {
    first_error = std::current_exception();
  }
  worker.join();
  if (first_error) std::rethrow_exception(first_error);
  if (second_error) std::rethrow_exception(second_error);
}

}  // namespace unieval::core
