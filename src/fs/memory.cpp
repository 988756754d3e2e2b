#include "fs/memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>

#include "fs/file_ops.h"

namespace gdedup::fs {

void* map_zeroed(size_t bytes) {
  size_t asked = bytes;
  if (const int err = observe(Op::kMap, "", asked)) {
    errno = err;
    return nullptr;
  }
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
}

const void* map_file_read_only(int fd, size_t bytes, uint64_t offset) {
  void* p = ::mmap(nullptr, bytes, PROT_READ, MAP_SHARED, fd, static_cast<off_t>(offset));
  return p == MAP_FAILED ? nullptr : p;
}

size_t page_size() {
  static const size_t size = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  return size;
}

uint64_t physical_memory() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  if (pages <= 0) return UINT64_MAX;
  return static_cast<uint64_t>(pages) * page_size();
}

void drop_mapped_pages(const void* p, size_t bytes) {
  ::madvise(const_cast<void*>(p), bytes, MADV_DONTNEED);
}

void unmap(void* p, size_t bytes) { ::munmap(p, bytes); }

void advise_huge_pages([[maybe_unused]] void* p, [[maybe_unused]] size_t bytes) {
#ifdef MADV_HUGEPAGE
  ::madvise(p, bytes, MADV_HUGEPAGE);
#endif
}

}  // namespace gdedup::fs
