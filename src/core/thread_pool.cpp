#include "core/thread_pool.h"

#include <new>
#include <string>
#include <system_error>

#include "fs/process.h"
#include "gdedup/error.h"

namespace gdedup::detail {

void Barrier::arrive_and_wait() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (aborted_) throw BarrierAborted{};
  const uint64_t generation = generation_;
  if (++arrived_ == parties_) {
    arrived_ = 0;
    ++generation_;
    all_here_.notify_all();
  } else {
    all_here_.wait(lock, [&] { return generation_ != generation || aborted_; });
    if (generation_ == generation) throw BarrierAborted{};
  }
}

void Barrier::abort() {
  std::lock_guard<std::mutex> lock(mutex_);
  aborted_ = true;
  all_here_.notify_all();
}

ThreadPool::~ThreadPool() {
  forget_helpers_after_fork();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ending_ = true;
  }
  call_posted_.notify_all();
  for (std::thread& helper : helpers_) helper.join();
}

void ThreadPool::forget_helpers_after_fork() {
  if (helpers_.empty() || helpers_pid_ == fs::process_id()) return;
  // The std::threads name the parent's threads, whose records the child's
  // C library has already reused: joining or detaching them acts on freed
  // records, and destroying them joinable ends the process. They are kept,
  // never touched again, where a leak checker still reaches them.
  static std::mutex forgotten_mutex;
  static auto* forgotten = new std::vector<std::thread>;
  {
    std::lock_guard<std::mutex> lock(forgotten_mutex);
    for (std::thread& helper : helpers_) forgotten->push_back(std::move(helper));
  }
  helpers_.clear();
  // A helper may have held the mutex, or waited on a condition variable,
  // when the parent forked: their copies here may never be released. They
  // are made anew in place; no thread of this process uses them.
  new (&mutex_) std::mutex;
  new (&call_posted_) std::condition_variable;
  new (&parts_ended_) std::condition_variable;
  fn_ = nullptr;
  barrier_ = nullptr;
  parts_ = 0;
  running_ = 0;
  call_ = 0;
  ending_ = false;
  failure_ = nullptr;
}

void ThreadPool::start_helpers(unsigned count) {
  if (helpers_.empty()) helpers_pid_ = fs::process_id();
  while (helpers_.size() < count) {
    const auto part = static_cast<unsigned>(helpers_.size()) + 1;
    try {
      helpers_.emplace_back([this, part] { serve(part); });
    } catch (const std::system_error& e) {
      throw thread_refused(owner_ + "'s " + std::to_string(count + 1) + " threads", e, count + 1);
    }
  }
}

void ThreadPool::run(unsigned parts, const std::function<void(unsigned)>& fn, Barrier* barrier) {
  forget_helpers_after_fork();
  start_helpers(parts - 1);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    fn_ = &fn;
    barrier_ = barrier;
    parts_ = parts;
    running_ = parts - 1;
    failure_ = nullptr;
    ++call_;
  }
  if (parts > 1) call_posted_.notify_all();
  run_part(0);
  std::exception_ptr failure;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    parts_ended_.wait(lock, [&] { return running_ == 0; });
    fn_ = nullptr;
    barrier_ = nullptr;
    failure = std::move(failure_);
  }
  if (failure) std::rethrow_exception(failure);
}

void ThreadPool::serve(unsigned part) {
  uint64_t seen = 0;
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    call_posted_.wait(lock, [&] { return ending_ || call_ != seen; });
    if (ending_) return;
    seen = call_;
    // A call with fewer parts leaves this helper parked.
    if (part >= parts_) continue;
    lock.unlock();
    run_part(part);
    lock.lock();
    if (--running_ == 0) parts_ended_.notify_one();
  }
}

void ThreadPool::run_part(unsigned part) {
  try {
    (*fn_)(part);
  } catch (...) {
    Barrier* barrier = nullptr;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!failure_) failure_ = std::current_exception();
      barrier = barrier_;
    }
    if (barrier != nullptr) barrier->abort();
  }
}

}  // namespace gdedup::detail
