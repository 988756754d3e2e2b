#include "gdedup/frontend/standard_streams.h"

#include <fcntl.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <cerrno>

#include "fs/descriptors.h"
#include "fs/file_ops.h"

namespace gdedup::fs {
namespace {

bool closed(int fd) { return ::fcntl(fd, F_GETFD) == -1 && errno == EBADF; }

// An O_PATH descriptor of an anonymous inode (an epoll instance's, open at
// `anchor`): read(2) and write(2) fail with EBADF, and its name in /proc,
// the only way a name leads to a standard stream (/dev/stdin is a link to
// /proc/self/fd/0), cannot be opened at all (ENXIO). Without /proc (or
// without an anchor), the root folder instead: no name leads to it then.
// The lowest free number, or -1 with errno set.
int refusing_descriptor(int anchor) {
  if (anchor >= 0) {
    const std::string name = "/proc/self/fd/" + std::to_string(anchor);
    // Inherited on exec (no O_CLOEXEC): a program started from this one
    // finds its streams held too.
    const int held = ::open(name.c_str(), O_PATH);
    if (held >= 0) return held;
  }
  return ::open("/", O_PATH | O_DIRECTORY);
}

}  // namespace

int hold_standard_streams() {
  if (!closed(STDIN_FILENO) && !closed(STDOUT_FILENO) && !closed(STDERR_FILENO)) return 0;
  // Above the streams itself, so that closing it frees none of them.
  const int created = ::epoll_create1(EPOLL_CLOEXEC);
  const int anchor = created < 0 ? -1 : duplicate_descriptor(created);
  if (created >= 0) ::close(created);
  // open(2) takes the lowest free number: each one it gives at or below 2
  // was a closed stream, now held; the first above them is not needed.
  int err = 0;
  for (;;) {
    const int held = refusing_descriptor(anchor);
    if (held < 0) err = errno;
    if (held < 0 || held > STDERR_FILENO) {
      if (held >= 0) ::close(held);
      break;
    }
  }
  if (anchor >= 0) ::close(anchor);
  return err;
}

int write_standard_output(const std::string& text) {
  return write_all(STDOUT_FILENO, "standard output", text.data(), text.size());
}

int close_standard_output() { return close_fd(STDOUT_FILENO); }

}  // namespace gdedup::fs
