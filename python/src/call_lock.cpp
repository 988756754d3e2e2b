#include "call_lock.h"

#include <new>

#include "gdedup/error.h"

namespace gdedup::python {

void CallLock::check_process() {
  const pid_t pid = ::getpid();
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
