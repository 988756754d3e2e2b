// The lock that lets one call at a time into an engine shared by Python
// threads (taken with the GIL released), and the check that a process forked
// from the one that last used it makes before its first call.
#pragma once

#include <sys/types.h>

#include <mutex>
#include <string>

namespace gdedup::python {

class CallLock {
 public:
  // `what`: the object, named in the refusal ("filter", "set").
  explicit CallLock(std::string what);

  std::mutex& mutex() { return mutex_; }

  // Before every call, with the GIL held (which orders the calls of this
  // process's threads). In a process forked from the one that last used
  // the object, the first call finds whether a thread of the parent was in
  // a call when it forked: then the lock is held by a thread this process
  // has not, and the engine is part way through a call that will never end
  // here, so every call is refused (it would hang at the lock).
  void check_process();

 private:
  std::string what_;
  std::mutex mutex_;
  pid_t pid_;  // the process that last checked
  bool forked_in_call_ = false;
};

}  // namespace gdedup::python
