#include "fs/live_temporaries.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

#include "fs/descriptors.h"

namespace gdedup::fs {
namespace {

// A job has a few replacements in flight at most (filter, checkpoint,
// statistics); 32 leaves room for tools that hold more.
constexpr int kSlots = 32;
constexpr size_t kMaxPath = 4096;

enum SlotState : int { kFree, kFilling, kLive };

struct Slot {
  std::atomic<int> state{kFree};
  char path[kMaxPath];
  bool lock_file;
  std::atomic<int> fd{-1};  // a lock file's descriptor, once open
};
static_assert(std::atomic<int>::is_always_lock_free, "read from a signal handler");

Slot g_slots[kSlots];

int register_slot(const std::string& path, bool lock_file) {
  if (path.size() >= kMaxPath) return -1;
  for (int i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (g_slots[i].state.compare_exchange_strong(expected, kFilling)) {
      std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
      g_slots[i].lock_file = lock_file;
      g_slots[i].fd.store(-1, std::memory_order_relaxed);
      g_slots[i].state.store(kLive, std::memory_order_release);
      return i;
    }
  }
  return -1;
}

// True when `fd` is the lock file at `path` and its lock is this process's
// to take: held through `fd` already, or held by nobody (flock(2) is a bare
// system call, like those POSIX lists as async-signal-safe).
bool lock_is_ours(int fd, const char* path) {
  return still_linked(fd, path) && empty_regular_file(fd) && ::flock(fd, LOCK_EX | LOCK_NB) == 0;
}

void remove_file_of(const Slot& slot) {
  if (!slot.lock_file) {
    ::unlink(slot.path);
    return;
  }
  const int fd = slot.fd.load(std::memory_order_acquire);
  if (fd >= 0) {
    if (lock_is_ours(fd, slot.path)) ::unlink(slot.path);
    return;
  }
  // Not open yet, or being opened: the file there may be the one that open
  // is creating. A lock nobody holds is as good as ours: the other jobs of
  // the locking protocol find the name gone and start over. The probe holds
  // that lock until the name is gone.
  struct stat st {};
  if (::lstat(slot.path, &st) != 0 || !S_ISREG(st.st_mode)) return;  // no device is opened
  const int probe = open_descriptor(slot.path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (probe < 0) return;
  if (lock_is_ours(probe, slot.path)) ::unlink(slot.path);
  ::close(probe);
}

}  // namespace

bool still_linked(int fd, const char* name) {
  struct stat by_fd {}, by_name {};
  return ::fstat(fd, &by_fd) == 0 && ::lstat(name, &by_name) == 0 &&
         by_fd.st_dev == by_name.st_dev && by_fd.st_ino == by_name.st_ino;
}

bool empty_regular_file(int fd) {
  struct stat st {};
  return ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0;
}

int register_temporary(const std::string& path) { return register_slot(path, false); }

int register_lock_file(const std::string& path) { return register_slot(path, true); }

void lock_file_opened(int slot, int fd) {
  if (slot >= 0 && slot < kSlots) g_slots[slot].fd.store(fd, std::memory_order_release);
}

void forget_temporary(int slot) {
  if (slot >= 0 && slot < kSlots) g_slots[slot].state.store(kFree, std::memory_order_release);
}

void remove_live_temporaries() {
  for (Slot& slot : g_slots) {
    if (slot.state.load(std::memory_order_acquire) == kLive) remove_file_of(slot);
  }
}

}  // namespace gdedup::fs
