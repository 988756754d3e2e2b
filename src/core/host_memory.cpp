#include "core/host_memory.h"

#include <cerrno>
#include <cstdint>
#include <string>

#include "fs/file_ops.h"
#include "fs/memory.h"
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
  void* base = fs::map_zeroed(total);
  if (base == nullptr) {
    throw Error("cannot allocate " + std::to_string(bytes) +
                    " bytes of memory for the filter: " + fs::error_text(errno) +
                    "; a smaller filter needs less",
                ErrorKind::out_of_memory, bytes);
  }
  if (total == bytes) return base;
  // Trim the mapping to a 2 MiB-aligned start; the slack at both ends goes.
  const auto start = reinterpret_cast<uintptr_t>(base);
  const uintptr_t aligned = (start + kHugePage - 1) & ~(kHugePage - 1);
  if (aligned > start) fs::unmap(base, aligned - start);
  const uintptr_t end = start + total, used_end = aligned + bytes;
  const uintptr_t page_end = (used_end + 4095) & ~uintptr_t{4095};
  if (end > page_end) fs::unmap(reinterpret_cast<void*>(page_end), end - page_end);
  fs::advise_huge_pages(reinterpret_cast<void*>(aligned), bytes);
  return reinterpret_cast<void*>(aligned);
}

void release(void* p, size_t bytes) noexcept {
  if (p != nullptr) fs::unmap(p, bytes);
}

}  // namespace gdedup::detail
