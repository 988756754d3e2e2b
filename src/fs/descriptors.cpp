#include "fs/descriptors.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace gdedup::fs {
namespace {

// `fd`, just opened with `flags`, or when it is a standard stream's number,
// a copy above them with the low number closed; -1 with errno set when no
// copy could be made (no descriptor free above 2). A file that O_CREAT |
// O_EXCL made is then the caller's own, and `remove` removes it rather than
// leave it behind.
template <class Remove>
int off_standard_streams(int fd, int flags, Remove remove) {
  if (fd < 0 || fd > STDERR_FILENO) return fd;
  const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
  const int err = errno;
  ::close(fd);
  if (moved < 0 && (flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL)) remove();
  errno = err;
  return moved;
}

}  // namespace

int open_descriptor(const char* path, int flags, mode_t mode) {
  return off_standard_streams(::open(path, flags, mode), flags, [&] { ::unlink(path); });
}

int open_descriptor_at(int folder, const char* name, int flags, mode_t mode) {
  return off_standard_streams(::openat(folder, name, flags, mode), flags,
                              [&] { ::unlinkat(folder, name, 0); });
}

int duplicate_descriptor(int fd) { return ::fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1); }

}  // namespace gdedup::fs
