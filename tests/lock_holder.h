// A child process that holds a lock on a path (fs::PathLock), as another
// gdedup job would, for the tests of what a lock refuses.
#pragma once

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stdexcept>
#include <string>

#include "gdedup/frontend/path_lock.h"

namespace gdedup::test {

// A child process that holds the lock on `path` until told to go; it then
// releases it, or, when `killed`, just exits as a killed job would.
class Holder {
 public:
  explicit Holder(const std::string& path, bool killed = false) {
    int ready[2];
    if (::pipe(ready) != 0 || ::pipe(go_) != 0) throw std::runtime_error("pipe");
    pid_ = ::fork();
    if (pid_ == 0) {
      fs::PathLock lock;
      const char ok = lock.acquire(path, false) == 0 ? 'y' : 'n';
      (void)!::write(ready[1], &ok, 1);
      char c;
      (void)!::read(go_[0], &c, 1);
      if (!killed) lock.release();
      ::_exit(0);
    }
    char ok = 'n';
    (void)!::read(ready[0], &ok, 1);
    locked_ = ok == 'y';
    ::close(ready[0]);
    ::close(ready[1]);
  }
  ~Holder() { release(); }
  void release() {
    if (pid_ <= 0) return;
    (void)!::write(go_[1], "x", 1);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
  pid_t pid() const { return pid_; }
  bool locked() const { return locked_; }

 private:
  pid_t pid_ = -1;
  int go_[2];
  bool locked_ = false;
};

}  // namespace gdedup::test
