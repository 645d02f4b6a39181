// The shared thread helpers: every index is visited exactly once for any thread count, the
// error a sequential run would meet first is the one rethrown, and both jobs of
// run_concurrently always finish.
#include "core/parallel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace unieval {
namespace {

TEST(ParallelTest, ResolveThreads) {
  EXPECT_EQ(3, core::resolve_threads(3));
  EXPECT_EQ(12, core::resolve_threads(12));  // an explicit count is taken as given
  int all = core::resolve_threads(0);
  EXPECT_GE(all, 1);
  EXPECT_LE(all, 8);
  EXPECT_EQ(all, core::resolve_threads(-1));
}

TEST(ParallelTest, RangesCoverEveryIndexOnceInContiguousSlices) {
  for (size_t n : {0u, 1u, 255u, 256u, 511u, 512u, 1000u, 4099u}) {
    for (int threads : {1, 2, 3, 8}) {
      std::vector<int> seen(n, 0);
      std::vector<std::pair<size_t, size_t>> slices;
      std::mutex mu;
      std::set<std::thread::id> ids;
      core::parallel_ranges(n, threads, [&](size_t b, size_t e) {
        std::lock_guard<std::mutex> lock(mu);
        slices.emplace_back(b, e);
        ids.insert(std::this_thread::get_id());
        for (size_t i = b; i < e; ++i) ++seen[i];
      });
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(1, seen[i]) << n << " " << threads << " " << i;
      size_t want_workers =
          std::max<size_t>(1, std::min<size_t>(static_cast<size_t>(threads), n / 256));
      EXPECT_EQ(want_workers, slices.size()) << n << " " << threads;
      EXPECT_EQ(want_workers, ids.size()) << n << " " << threads;
    }
  }
}

TEST(ParallelTest, LowestFailingSliceIsRethrownAfterAllFinish) {
  std::atomic<int> finished{0};
  try {
    core::parallel_ranges(4000, 4, [&](size_t b, size_t) {
      ++finished;
      if (b > 0) throw std::runtime_error("slice at " + std::to_string(b));
    });
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string("slice at 1000"), e.what());
  }
  EXPECT_EQ(4, finished.load());
}

TEST(ParallelTest, RunConcurrentlyRunsBothAndPrefersTheFirstError) {
  for (bool parallel : {true, false}) {
    int a = 0, b = 0;
    core::run_concurrently([&] { a = 1; }, [&] { b = 2; }, parallel);
    EXPECT_EQ(1, a);
    EXPECT_EQ(2, b);
    bool second_ran = false;
    try {
      core::run_concurrently([&] { throw std::runtime_error("first"); },
                             [&] {
                               second_ran = true;
                               throw std::runtime_error("second");
                             },
                             parallel);
      FAIL() << "no exception";
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string("first"), e.what());
    }
    // Sequentially a failing first job stops there, as straight-line code would.
    EXPECT_EQ(parallel, second_ran);
    try {
      core::run_concurrently([&] {}, [&] { throw std::runtime_error("second"); }, parallel);
      FAIL() << "no exception";
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string("second"), e.what());
    }
  }
}

}  // namespace
}  // namespace unieval
