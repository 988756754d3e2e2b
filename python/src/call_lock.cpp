#include "call_lock.h"

#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <new>
#include <utility>

#include "gdedup/error.h"

namespace gdedup::python {
namespace {

// This process's id, kept by a handler of fork's child rather than asked of
// the kernel at every call: getpid is a system call (glibc caches no pid),
// which took a fifth of a one-key call's time. Python forks through fork(),
// which runs the handler.
std::atomic<pid_t> this_process{::getpid()};

void after_fork_in_child() { this_process.store(::getpid(), std::memory_order_relaxed); }

pid_t current_process() {
  [[maybe_unused]] static const int registered =
      pthread_atfork(nullptr, nullptr, after_fork_in_child);
  return this_process.load(std::memory_order_relaxed);
}

}  // namespace

CallLock::CallLock(std::string what) : what_(std::move(what)), pid_(current_process()) {}

void CallLock::check_process() {
  const pid_t pid = current_process();
  if (pid != pid_) {
    pid_ = pid;
    if (mutex_.try_lock()) {
      mutex_.unlock();
    } else {
      forked_in_call_ = true;
      new (&mutex_) std::mutex;  // its copy is never unlocked here
    }
  }
  if (forked_in_call_) {
    throw Error("this " + what_ + " was in a call on another thread when the process forked, "
                "and that call never ends in process " + std::to_string(pid) + ": the " + what_ +
                "'s state here is unknown, so it refuses every call. Fork while no thread uses "
                "the " + what_ + ", or load or make the " + what_ + " in the forked process.");
  }
}

}  // namespace gdedup::python
