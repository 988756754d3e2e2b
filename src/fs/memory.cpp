#include "fs/memory.h"

#include <sys/mman.h>

namespace gdedup::fs {

void* map_zeroed(size_t bytes) {
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
}

const void* map_file_read_only(int fd, size_t bytes) {
  void* p = ::mmap(nullptr, bytes, PROT_READ, MAP_SHARED, fd, 0);
  return p == MAP_FAILED ? nullptr : p;
}

void unmap(void* p, size_t bytes) { ::munmap(p, bytes); }

void advise_huge_pages([[maybe_unused]] void* p, [[maybe_unused]] size_t bytes) {
#ifdef MADV_HUGEPAGE
  ::madvise(p, bytes, MADV_HUGEPAGE);
#endif
}

}  // namespace gdedup::fs
