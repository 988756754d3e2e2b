#include "gdedup/frontend/mapping_guard.h"

#include <signal.h>
#include <sys/mman.h>

#include <atomic>
#include <cstdint>
#include <mutex>

#include "fs/memory.h"

namespace gdedup::fs {
namespace {

// The handler reads the slots without a lock (it may interrupt a thread that
// holds one): a slot is published by storing its end last, and retired by
// clearing its end first.
struct Slot {
  std::atomic<uintptr_t> begin{0};
  std::atomic<uintptr_t> end{0};
  std::atomic<bool> cut{false};
};

Slot slots[MappingGuard::kSlots];
std::mutex slots_mutex;  // taking and freeing slots, not the handler
bool handler_installed = false;
struct sigaction previous_action;
size_t page_bytes = 0;

void on_bus_error(int signal, siginfo_t* info, void* context) {
  const auto at = reinterpret_cast<uintptr_t>(info->si_addr);
  for (Slot& slot : slots) {
    const uintptr_t end = slot.end.load(std::memory_order_acquire);
    if (at >= slot.begin.load(std::memory_order_relaxed) && at < end) {
      // mmap is a plain system call on Linux, safe in a handler. Returning
      // runs the faulting load again, now on zeros.
      void* page = reinterpret_cast<void*>(at & ~(uintptr_t{page_bytes} - 1));
      ::mmap(page, page_bytes, PROT_READ, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      slot.cut.store(true, std::memory_order_release);
      return;
    }
  }
  // Not ours: the previous disposition handles the fault, which recurs when
  // this handler returns.
  if ((previous_action.sa_flags & SA_SIGINFO) != 0 && previous_action.sa_sigaction != nullptr) {
    previous_action.sa_sigaction(signal, info, context);
    return;
  }
  ::sigaction(SIGBUS, &previous_action, nullptr);
}

}  // namespace

MappingGuard::MappingGuard(const void* p, size_t bytes) {
  std::lock_guard<std::mutex> lock(slots_mutex);
  if (!handler_installed) {
    page_bytes = page_size();
    struct sigaction action = {};
    action.sa_sigaction = on_bus_error;
    action.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    if (::sigaction(SIGBUS, &action, &previous_action) != 0) return;
    handler_installed = true;
  }
  for (size_t i = 0; i < kSlots; ++i) {
    if (slots[i].end.load(std::memory_order_relaxed) != 0) continue;
    slots[i].cut.store(false, std::memory_order_relaxed);
    slots[i].begin.store(reinterpret_cast<uintptr_t>(p), std::memory_order_relaxed);
    slots[i].end.store(reinterpret_cast<uintptr_t>(p) + bytes, std::memory_order_release);
    slot_ = i;
    return;
  }
}

MappingGuard::~MappingGuard() {
  if (!taken()) return;
  std::lock_guard<std::mutex> lock(slots_mutex);
  slots[slot_].end.store(0, std::memory_order_release);
  slots[slot_].begin.store(0, std::memory_order_relaxed);
}

bool MappingGuard::cut() const {
  return taken() && slots[slot_].cut.load(std::memory_order_acquire);
}

}  // namespace gdedup::fs
