// Locks that keep two jobs off one file for the life of a job. A file that
// is replaced by rename (a filter, a checkpoint) cannot carry the lock
// itself, since each save makes a new inode, so the lock is an flock(2) on
// the lock file PATH.lock beside it, the same for every kind of file the
// job writes. The kernel drops the lock when the holder exits, even by
// SIGKILL: a lock file left behind is free for the next job, which reuses it.
// A lock file is in the registry of live temporaries (live_temporaries.h)
// from before its creation until its release, so that a process a signal
// ends at once removes it too, also while taking it (unless another job
// holds it).
// Part of the OS layer (src/fs): calls return 0 or an errno, which
// error_text() (gdedup/frontend/paths.h) puts into words.
#pragma once

#include <sys/types.h>

#include <string>

namespace gdedup::fs {

class PathLock {
 public:
  PathLock() = default;
  PathLock(PathLock&& other) noexcept;
  PathLock& operator=(PathLock&& other) noexcept;
  PathLock(const PathLock&) = delete;
  PathLock& operator=(const PathLock&) = delete;
  // Releases the lock and removes its lock file.
  ~PathLock();

  // Locks `path` through PATH.lock, opened with O_NOFOLLOW (a link planted
  // at that name gives ELOOP; a file there that is not an empty regular
  // file, so not a lock file, gives EEXIST and is left alone). With `wait`,
  // blocks until the holder is done; without, returns EWOULDBLOCK at once if another process holds it, with
  // its pid in *holder (0 when it cannot be found). 0 or an errno.
  int acquire(const std::string& path, bool wait, pid_t* holder = nullptr);

  // Locks an existing regular file itself with flock(2): the lock file of
  // one name does not guard another hard link to the same file, but every
  // name leads to this inode. There is no lock file then (lock_file() is
  // ""), and release() removes nothing. 0, holding nothing, when `path`
  // does not exist, is not a regular file or cannot be opened for reading;
  // EWOULDBLOCK with the holder's pid in *holder when another process
  // holds it.
  int lock_itself(const std::string& path, pid_t* holder = nullptr);

  bool held() const { return fd_ >= 0; }
  const std::string& lock_file() const { return name_; }
  void release();

 private:
  int fd_ = -1;
  std::string name_;
  int live_slot_ = -1;  // name_ in the registry of live temporaries
};

// The lock file for `path`.
std::string lock_file_for(const std::string& path);

// Whether a job locks `path`: a regular file or a name not created yet.
// Devices, pipes and terminals (/dev/null, a FIFO) are not: two jobs cannot
// damage their contents.
bool lockable(const std::string& path);

// The name whose lock guards `path`: an output written in place through a
// symbolic link is the file the link leads to, so that a second job naming
// that file, or another link to it, finds the same lock file. A link to a
// file not created yet leads to the name the job will create.
std::string locked_name(const std::string& path);

}  // namespace gdedup::fs
