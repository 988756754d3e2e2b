#include "core/host_memory.h"

#include <sys/mman.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

#include "gdedup/error.h"

namespace gdedup::detail {
namespace {

constexpr size_t kHugePage = size_t{2} << 20;

size_t mapped_size(size_t bytes) {
  return bytes >= kHugePage ? bytes + kHugePage : bytes;
}

}  // namespace

void* allocate_zeroed(size_t bytes) {
  if (bytes == 0) return nullptr;
  const size_t total = mapped_size(bytes);
  void* base = mmap(nullptr, total, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) {
    throw Error("cannot allocate " + std::to_string(bytes) +
                " bytes of memory for the filter: " + std::strerror(errno) +
                "; plan a smaller filter (--fpr, --capacity or --memory)");
  }
  if (total == bytes) return base;
  // Trim the mapping to a 2 MiB-aligned start; the slack at both ends goes.
  const auto start = reinterpret_cast<uintptr_t>(base);
  const uintptr_t aligned = (start + kHugePage - 1) & ~(kHugePage - 1);
  if (aligned > start) munmap(base, aligned - start);
  const uintptr_t end = start + total, used_end = aligned + bytes;
  const uintptr_t page_end = (used_end + 4095) & ~uintptr_t{4095};
  if (end > page_end) munmap(reinterpret_cast<void*>(page_end), end - page_end);
#ifdef MADV_HUGEPAGE
  madvise(reinterpret_cast<void*>(aligned), bytes, MADV_HUGEPAGE);
#endif
  return reinterpret_cast<void*>(aligned);
}

void release(void* p, size_t bytes) noexcept {
  if (p != nullptr) munmap(p, bytes);
}

}  // namespace gdedup::detail
