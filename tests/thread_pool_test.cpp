// The thread pool of the CPU backend and the bit count: every part of every call runs once, on the
// same helper thread from call to call, and a failing part is rethrown by
// the caller with the other parts released from the barrier, and a process
// forked from one whose pool has helpers gets helpers of its own.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <functional>
#include <memory>
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

// Runs `child` in a forked process, which ends with its result as exit
// status: 0 passed. An alarm ends a child that hangs (the pool's helpers
// did not survive the fork), so that a regression fails instead of hanging.
int exit_status_of_forked(const std::function<int()>& child) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::alarm(30);
    ::_exit(child());
  }
  int status = 0;
  if (pid < 0 || ::waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST(ThreadPool, AForkedChildStartsHelpersOfItsOwn) {
  ThreadPool pool("the test");
  std::atomic<int> runs{0};
  pool.run(4, [&](unsigned) { ++runs; }, nullptr);
  ASSERT_EQ(runs.load(), 4);
  // Twice in the child: the first call starts its helpers, the second
  // finds them (the pid check must not start them at every call).
  EXPECT_EQ(exit_status_of_forked([&] {
    for (int call = 0; call < 2; ++call) {
      std::atomic<int> child_runs{0};
      Barrier barrier(4);
      pool.run(4, [&](unsigned) {
        barrier.arrive_and_wait();  // all four parts at once: four threads
        ++child_runs;
      }, &barrier);
      if (child_runs.load() != 4) return 1;
    }
    return 0;
  }), 0);
  // The parent's helpers still serve it.
  runs = 0;
  pool.run(4, [&](unsigned) { ++runs; }, nullptr);
  EXPECT_EQ(runs.load(), 4);
}

TEST(ThreadPool, AForkedChildEndsAPoolItNeverUsed) {
  auto pool = std::make_unique<ThreadPool>("the test");
  pool->run(3, [](unsigned) {}, nullptr);
  // The destructor must not wait for the parent's helpers.
  EXPECT_EQ(exit_status_of_forked([&] {
    pool.reset();
    return 0;
  }), 0);
}

}  // namespace
}  // namespace gdedup::detail
