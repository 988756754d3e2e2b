#include "fs/live_temporaries.h"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

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
  bool identified;  // dev and ino hold the file's identity
  dev_t dev;
  ino_t ino;
};
static_assert(std::atomic<int>::is_always_lock_free, "read from a signal handler");

Slot g_slots[kSlots];

}  // namespace

int register_temporary(const std::string& path, int fd) {
  if (path.size() >= kMaxPath) return -1;
  struct stat st {};
  const bool identified = fd >= 0 && ::fstat(fd, &st) == 0;
  for (int i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (g_slots[i].state.compare_exchange_strong(expected, kFilling)) {
      std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
      g_slots[i].identified = identified;
      g_slots[i].dev = st.st_dev;
      g_slots[i].ino = st.st_ino;
      g_slots[i].state.store(kLive, std::memory_order_release);
      return i;
    }
  }
  return -1;
}

void forget_temporary(int slot) {
  if (slot >= 0 && slot < kSlots) g_slots[slot].state.store(kFree, std::memory_order_release);
}

void remove_live_temporaries() {
  for (Slot& slot : g_slots) {
    if (slot.state.load(std::memory_order_acquire) != kLive) continue;
    struct stat st {};  // lstat(2) is async-signal-safe
    if (slot.identified &&
        (::lstat(slot.path, &st) != 0 || st.st_dev != slot.dev || st.st_ino != slot.ino)) {
      continue;
    }
    ::unlink(slot.path);
  }
}

}  // namespace gdedup::fs
