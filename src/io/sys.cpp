#include "io/sys.h"

#include <cerrno>
#include <cstring>
#include <unistd.h>

namespace gdedup::io::sys {

std::string error_text(int err) {
  char buf[256];
  // GNU strerror_r returns the message, which may or may not live in buf.
#if defined(__GLIBC__) && defined(_GNU_SOURCE)
  return strerror_r(err, buf, sizeof buf);
#else
  if (strerror_r(err, buf, sizeof buf) != 0) return "error " + std::to_string(err);
  return buf;
#endif
}

long read_some(int fd, char* buf, size_t capacity) {
  for (;;) {
    ssize_t n = ::read(fd, buf, capacity);
    if (n >= 0 || errno != EINTR) return static_cast<long>(n);
  }
}

int write_all(int fd, const char* data, size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) return ENOSPC;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return 0;
}

int close_fd(int fd) {
  if (::close(fd) == 0 || errno == EINTR) return 0;
  return errno;
}

}  // namespace gdedup::io::sys
