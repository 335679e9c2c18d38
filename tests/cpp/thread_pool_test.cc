// The thread pool: every task runs exactly once, whatever the pool's size, the
// number of tasks, and however late a worker wakes.
#include "runtime/thread_pool.h"

#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <thread>
#include <vector>

namespace fd {
namespace {

TEST(ThreadPool, EveryTaskRunsOnceEvenWhenWorkersWakeLate) {
  for (int threads : {1, 2, 3, 4}) {
    ThreadPool pool(threads);
    for (int it = 0; it < 3000; ++it) {
      const int n = 1 + it % 9;
      std::vector<int> hits(n, 0);
      pool.parallel_for(n, [&](int i) {
        ++hits[i];
        if (it % 7 == 0) std::this_thread::sleep_for(std::chrono::microseconds(it % 40));
      });
      for (int i = 0; i < n; ++i) ASSERT_EQ(hits[i], 1) << threads << " threads, task " << i << " of " << n;
      // Now and then long enough for the workers to fall asleep.
      if (it % 500 == 0) std::this_thread::sleep_for(std::chrono::microseconds(500));
    }
  }
}

TEST(ThreadPool, SlowTasksAreSharedBetweenThreads) {
  ThreadPool pool(2);
  std::vector<std::thread::id> ran_on(8);
  pool.parallel_for(8, [&](int i) {
    ran_on[i] = std::this_thread::get_id();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  });
  EXPECT_EQ(std::set<std::thread::id>(ran_on.begin(), ran_on.end()).size(), 2u);
}

TEST(ThreadPool, ACallFromInsideAJobRunsInline) {
  ThreadPool pool(2);
  std::vector<int> hits(4, 0);
  pool.parallel_for(2, [&](int i) { pool.parallel_for(2, [&](int j) { ++hits[i * 2 + j]; }); });
  EXPECT_EQ(hits, std::vector<int>(4, 1));
}

}  // namespace
}  // namespace fd

namespace fd {
namespace {

// One pool per thread count, shared by every caller; none for one thread.
TEST(ThreadPools, OnePoolPerThreadCountAndNoneForOne) {
  ThreadPools pools;
  EXPECT_EQ(pools.get(1), nullptr);
  EXPECT_EQ(pools.get(0), nullptr);
  const auto two = pools.get(2);
  ASSERT_NE(two, nullptr);
  EXPECT_EQ(two->size(), 2);
  EXPECT_EQ(pools.get(2), two);
  EXPECT_NE(pools.get(3), two);
  EXPECT_EQ(pools.get(3)->size(), 3);
}

}  // namespace
}  // namespace fd
