// The thread pool of the CPU backend and the bit count: every part of every call runs once, on the
// same helper thread from call to call, and a failing part is rethrown by
// the caller with the other parts released from the barrier.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/thread_pool.h"

namespace gdedup::detail {
namespace {

TEST(ThreadPool, EveryPartRunsOnceOnTheSameThreadInEveryCall) {
  ThreadPool pool("the test");
  std::vector<std::thread::id> first(8);
  pool.run(8, [&](unsigned t) { first[t] = std::this_thread::get_id(); }, nullptr);
  EXPECT_EQ(first[0], std::this_thread::get_id());
  for (unsigned call = 0; call < 200; ++call) {
    const unsigned parts = 1 + call % 8;  // fewer parts leave helpers parked
    std::vector<std::atomic<int>> runs(parts);
    std::vector<std::thread::id> ids(parts);
    pool.run(parts, [&](unsigned t) {
      ++runs[t];
      ids[t] = std::this_thread::get_id();
    }, nullptr);
    for (unsigned t = 0; t < parts; ++t) {
      ASSERT_EQ(runs[t].load(), 1) << "call " << call << " part " << t;
      ASSERT_EQ(ids[t], first[t]) << "call " << call << " part " << t << " ran on a new thread";
    }
  }
}

TEST(ThreadPool, AFailingPartIsRethrownAndReleasesTheOthersAtTheBarrier) {
  ThreadPool pool("the test");
  for (unsigned failing = 0; failing < 4; ++failing) {
    Barrier barrier(4);
    std::atomic<int> released{0};
    EXPECT_THROW(pool.run(4, [&](unsigned t) {
      if (t == failing) throw std::runtime_error("part failed");
      try {
        barrier.arrive_and_wait();
      } catch (const BarrierAborted&) {
        ++released;
        throw;
      }
    }, &barrier), std::runtime_error);
    EXPECT_EQ(released.load(), 3) << "failing part " << failing;
  }
  // The pool still serves calls after failures.
  std::atomic<int> runs{0};
  pool.run(4, [&](unsigned) { ++runs; }, nullptr);
  EXPECT_EQ(runs.load(), 4);
}

}  // namespace
}  // namespace gdedup::detail
