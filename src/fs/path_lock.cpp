#include "gdedup/frontend/path_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "fs/descriptors.h"
#include "fs/file_ops.h"
#include "fs/live_temporaries.h"

namespace gdedup::fs {
namespace {

// The pid holding an flock on the file open at `fd`, from /proc/locks
// ("1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF"); 0 if not found.
pid_t flock_holder(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return 0;
  const int table = open_descriptor("/proc/locks", O_RDONLY | O_CLOEXEC);
  FILE* locks = table < 0 ? nullptr : ::fdopen(table, "r");
  if (locks == nullptr) {
    if (table >= 0) ::close(table);
    return 0;
  }
  pid_t found = 0;
  char line[256];
  while (found == 0 && std::fgets(line, sizeof line, locks) != nullptr) {
    char kind[16];
    long pid = 0;
    unsigned major_no = 0, minor_no = 0;
    unsigned long long inode = 0;
    if (std::sscanf(line, "%*s %15s %*s %*s %ld %x:%x:%llu", kind, &pid, &major_no, &minor_no,
                    &inode) == 5 &&
        std::string(kind) == "FLOCK" && inode == st.st_ino && major_no == major(st.st_dev) &&
        minor_no == minor(st.st_dev)) {
      found = static_cast<pid_t>(pid);
    }
  }
  std::fclose(locks);
  return found;
}

}  // namespace

std::string lock_file_for(const std::string& path) { return path + ".lock"; }

PathLock::PathLock(PathLock&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      name_(std::move(other.name_)),
      live_slot_(std::exchange(other.live_slot_, -1)) {}

PathLock& PathLock::operator=(PathLock&& other) noexcept {
  if (this != &other) {
    release();
    fd_ = std::exchange(other.fd_, -1);
    name_ = std::move(other.name_);
    live_slot_ = std::exchange(other.live_slot_, -1);
  }
  return *this;
}

PathLock::~PathLock() { release(); }

void PathLock::release() {
  if (fd_ < 0) return;
  // Removed while still locked, so that no other job can lock this inode
  // and then lose it to the unlink (still_linked() makes them retry).
  // Forgotten first: a signal in between leaves a lock file nobody holds,
  // which the next job reuses, where the other order could remove a lock
  // file that another job has created meanwhile.
  forget_temporary(std::exchange(live_slot_, -1));
  // Only while the name still leads to this lock file: another process
  // may have renamed a file of its own over it (gdedup merge -o A.lock
  // while a job on A held the lock), which is no lock file to remove.
  if (!name_.empty() && still_linked(fd_, name_.c_str())) unlink_file(name_);
  ::close(std::exchange(fd_, -1));
}

int PathLock::lock_itself(const std::string& path, pid_t* holder) {
  release();
  name_.clear();  // no lock file of its own
  const int fd = open_descriptor(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return 0;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return 0;
  }
  int rc;
  do {
    rc = ::flock(fd, LOCK_EX | LOCK_NB);
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) {
    const int err = errno;
    if (holder != nullptr) *holder = err == EWOULDBLOCK ? flock_holder(fd) : 0;
    ::close(fd);
    return err;
  }
  fd_ = fd;
  return 0;
}

int PathLock::acquire(const std::string& path, bool wait, pid_t* holder) {
  release();
  const std::string name = lock_file_for(path);
  // Registered before the open creates the file: a signal right after it
  // would otherwise leave the lock file behind.
  const int slot = register_lock_file(name);
  for (;;) {
    const int fd =
        open_descriptor(name.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
      const int err = errno;
      forget_temporary(slot);
      return err;
    }
    lock_file_opened(slot, fd);
    int err = empty_regular_file(fd) ? 0 : EEXIST;
    if (err == 0) {
      int rc;
      do {
        rc = ::flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB));
      } while (rc != 0 && errno == EINTR);
      err = rc == 0 ? 0 : errno;
      if (err == EWOULDBLOCK && holder != nullptr) *holder = flock_holder(fd);
    }
    if (err == 0 && still_linked(fd, name.c_str())) {
      fd_ = fd;
      name_ = name;
      live_slot_ = slot;
      return 0;
    }
    lock_file_opened(slot, -1);
    ::close(fd);
    if (err != 0) {
      forget_temporary(slot);
      return err;
    }
  }
}

bool lockable(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode);
}

std::string locked_name(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return path;
  char real[PATH_MAX];
  if (::realpath(path.c_str(), real) != nullptr) return real;
  const ssize_t n = ::readlink(path.c_str(), real, sizeof real - 1);
  if (n <= 0) return path;
  const std::string target(real, static_cast<size_t>(n));
  const std::string full =
      target[0] == '/' ? target : containing_folder(path) + "/" + target;
  const size_t slash = full.find_last_of('/');
  if (::realpath(containing_folder(full).c_str(), real) == nullptr) return path;
  return std::string(real) + full.substr(slash);
}

}  // namespace gdedup::fs
