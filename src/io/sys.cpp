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

namespace {

// Calls put(done, remaining) until `size` bytes are out: EINTR retried,
// partial transfers continued. 0 or the errno of the failing call.
template <class Put>
int transfer_all(size_t size, Put put) {
  for (size_t done = 0; done < size;) {
    const ssize_t n = put(done, size - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) return ENOSPC;
    done += static_cast<size_t>(n);
  }
  return 0;
}

}  // namespace

int write_all(int fd, const void* data, size_t size) {
  const auto* p = static_cast<const char*>(data);
  return transfer_all(size, [&](size_t done, size_t n) { return ::write(fd, p + done, n); });
}

int pwrite_all(int fd, const void* data, size_t size, uint64_t offset) {
  const auto* p = static_cast<const char*>(data);
  return transfer_all(size, [&](size_t done, size_t n) {
    return ::pwrite(fd, p + done, n, static_cast<off_t>(offset + done));
  });
}

int close_fd(int fd) {
  if (::close(fd) == 0 || errno == EINTR) return 0;
  return errno;
}

}  // namespace gdedup::io::sys
