// Threads that stay for the life of their owner (a CPU backend, the bit
// counter of filter.cpp). Starting a thread costs about 20 us; a backend
// that started its helpers on every call paid that on every batch. The pool
// starts a helper the first time a call needs it and keeps it, parked on a
// condition variable, until the pool ends.
//
// A process forked from one that used the pool has none of its helpers
// (fork copies only the calling thread): the first call in the child finds
// the pool's process gone and starts helpers of its own.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace gdedup::detail {

// Lets the parts of one call wait for each other between phases
// (std::barrier is C++20). abort() releases every waiter, now and later,
// with BarrierAborted: a part that failed must not leave the others waiting.
struct BarrierAborted {};

class Barrier {
 public:
  explicit Barrier(unsigned parties) : parties_(parties) {}
  void arrive_and_wait();
  void abort();

 private:
  std::mutex mutex_;
  std::condition_variable all_here_;
  unsigned parties_;
  unsigned arrived_ = 0;
  uint64_t generation_ = 0;
  bool aborted_ = false;
};

class ThreadPool {
 public:
  // `owner` names who runs the threads in the error of a refused thread
  // ("the CPU backend").
  explicit ThreadPool(std::string owner) : owner_(std::move(owner)) {}
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;
  // Ends and joins the helpers.
  ~ThreadPool();

  // Runs fn(t) for t in [0, parts): part 0 on the caller, the others on
  // helpers, and returns when all have ended. One call at a time. Helpers
  // missing for this call are started before any part runs; when the system
  // refuses one, throws Error and runs nothing. An exception in a part
  // (std::bad_alloc under a memory limit) aborts `barrier` (may be null) and
  // is rethrown here once every part has ended, never on a helper thread.
  void run(unsigned parts, const std::function<void(unsigned)>& fn, Barrier* barrier);

 private:
  // In a process forked since the helpers started: forgets them (they are
  // not in this process) and makes the pool as new, so that run() starts
  // helpers here and the destructor waits for none.
  void forget_helpers_after_fork();
  void start_helpers(unsigned count);
  void serve(unsigned part);
  void run_part(unsigned part);

  const std::string owner_;
  std::mutex mutex_;
  std::condition_variable call_posted_;
  std::condition_variable parts_ended_;
  std::vector<std::thread> helpers_;  // helpers_[i] runs part i + 1
  int64_t helpers_pid_ = 0;  // the process the helpers run in (fs::process_id)
  // The call in progress; guarded by mutex_.
  const std::function<void(unsigned)>* fn_ = nullptr;
  Barrier* barrier_ = nullptr;
  unsigned parts_ = 0;
  unsigned running_ = 0;   // helper parts not yet ended
  uint64_t call_ = 0;      // counts calls, so a helper knows a new one came
  bool ending_ = false;
  std::exception_ptr failure_;
};

}  // namespace gdedup::detail
