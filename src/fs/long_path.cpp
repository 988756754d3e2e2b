#include "fs/long_path.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <climits>

#include "fs/descriptors.h"

namespace gdedup::fs {
namespace {

// Only a path the kernel refused for its length takes the long way; a single
// component longer than NAME_MAX fails there too, with the same errno.
bool too_long(const std::string& path) { return errno == ENAMETOOLONG && path.size() >= PATH_MAX; }

// The folder that holds the last component of `path`, opened with O_PATH
// one component at a time, and that component in `leaf` ("." for a path
// ending in '/'). A descriptor, or -1 with errno set.
int open_parent(const std::string& path, std::string& leaf) {
  const size_t last_slash = path.find_last_of('/');
  if (last_slash == std::string::npos) {  // one component, past NAME_MAX
    errno = ENAMETOOLONG;
    return -1;
  }
  int dir = open_descriptor(path[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
  size_t at = 0;
  while (dir >= 0 && at < last_slash) {
    const size_t end = path.find('/', at);
    if (end > at) {
      const int next = open_descriptor_at(dir, path.substr(at, end - at).c_str(),
                                O_PATH | O_DIRECTORY | O_CLOEXEC);
      const int err = errno;
      ::close(dir);
      errno = err;
      dir = next;
    }
    at = end + 1;
  }
  leaf = path.substr(last_slash + 1);
  if (leaf.empty()) leaf = ".";
  return dir;
}

}  // namespace

int open_any_length(const std::string& path, int flags, mode_t mode) {
  const int fd = open_descriptor(path.c_str(), flags, mode);
  if (fd >= 0 || !too_long(path)) return fd;
  std::string leaf;
  const int dir = open_parent(path, leaf);
  if (dir < 0) return -1;
  const int opened = open_descriptor_at(dir, leaf.c_str(), flags, mode);
  const int err = errno;
  ::close(dir);
  errno = err;
  return opened;
}

int stat_any_length(const std::string& path, struct stat& st, bool follow) {
  if ((follow ? ::stat(path.c_str(), &st) : ::lstat(path.c_str(), &st)) == 0) return 0;
  if (!too_long(path)) return errno;
  std::string leaf;
  const int dir = open_parent(path, leaf);
  if (dir < 0) return errno;
  const int rc = ::fstatat(dir, leaf.c_str(), &st, follow ? 0 : AT_SYMLINK_NOFOLLOW);
  const int err = errno;
  ::close(dir);
  return rc == 0 ? 0 : err;
}

}  // namespace gdedup::fs
