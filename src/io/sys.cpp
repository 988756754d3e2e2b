#include "io/sys.h"

#include <cerrno>
#include <unistd.h>

#include "fs/file_ops.h"

namespace gdedup::io::sys {

std::string error_text(int err) { return fs::error_text(err); }

long read_some(int fd, char* buf, size_t capacity) {
  for (;;) {
    ssize_t n = ::read(fd, buf, capacity);
    if (n >= 0 || errno != EINTR) return static_cast<long>(n);
  }
}

long pread_some(int fd, char* buf, size_t capacity, uint64_t offset) {
  for (;;) {
    ssize_t n = ::pread(fd, buf, capacity, static_cast<off_t>(offset));
    if (n >= 0 || errno != EINTR) return static_cast<long>(n);
  }
}

int write_all(int fd, const void* data, size_t size) {
  return fs::write_all(fd, "", data, size);
}

int pwrite_all(int fd, const void* data, size_t size, uint64_t offset) {
  return fs::pwrite_all(fd, "", data, size, offset);
}

int close_fd(int fd) {
  if (::close(fd) == 0 || errno == EINTR) return 0;
  return errno;
}

}  // namespace gdedup::io::sys
