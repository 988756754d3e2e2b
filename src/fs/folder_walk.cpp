#include "fs/folder_walk.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "fs/descriptors.h"
#include "fs/long_path.h"

namespace gdedup::fs {
namespace {

// The walk recurses once per level: a tree deeper than this (a path of
// 20,000 bytes at least) is refused where it goes deeper, not left to
// overflow the stack where the descriptor limit is high.
constexpr int kMaxDepth = 10000;

// The names in the open folder `dir` ("." and ".." left out); the
// descriptor is closed. 0 or an errno.
int read_names(int dir, std::vector<std::string>& names) {
  DIR* stream = ::fdopendir(dir);
  if (stream == nullptr) {
    const int err = errno;
    ::close(dir);
    return err;
  }
  for (;;) {
    errno = 0;
    const dirent* entry = ::readdir(stream);
    if (entry == nullptr) break;
    if (std::strcmp(entry->d_name, ".") != 0 && std::strcmp(entry->d_name, "..") != 0) {
      names.emplace_back(entry->d_name);
    }
  }
  const int err = errno;
  ::closedir(stream);
  return err;
}

// Adds the files under the folder open at `dir` (closed here), called
// `path`, to `out`. One descriptor per level of the tree is open at a time.
void walk(int dir, const std::string& path, int depth, FolderFiles& out) {
  // A second descriptor: fdopendir takes over the first, and its stream is
  // closed before the descent, so that only one per level stays open.
  const int parent = duplicate_descriptor(dir);
  std::vector<std::string> names;
  const int err = parent < 0 ? errno : read_names(dir, names);
  if (parent < 0) ::close(dir);
  if (err != 0) {
    if (parent >= 0) ::close(parent);
    out.unreadable.push_back({path, err});
    return;
  }
  for (const std::string& name : names) {
    const std::string entry = path + (path.back() == '/' ? "" : "/") + name;
    struct stat st {};
    if (::fstatat(parent, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      out.unreadable.push_back({entry, errno});
    } else if (S_ISDIR(st.st_mode) && depth >= kMaxDepth) {
      out.unreadable.push_back({entry, ENAMETOOLONG});
    } else if (S_ISDIR(st.st_mode)) {
      const int sub = open_descriptor_at(parent, name.c_str(),
                                         O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (sub < 0) {
        out.unreadable.push_back({entry, errno});
      } else {
        walk(sub, entry, depth + 1, out);
      }
    } else if (S_ISREG(st.st_mode)) {
      // Opened once here, so that a file the job could not read is named
      // now, before any work (O_NONBLOCK: a file can turn into a pipe).
      const int fd = open_descriptor_at(parent, name.c_str(),
                              O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
      if (fd < 0) {
        out.unreadable.push_back({entry, errno});
      } else {
        ::close(fd);
        out.files.push_back(entry);
      }
    }
  }
  ::close(parent);
}

}  // namespace

int list_folder_files(const std::string& folder, FolderFiles& out) {
  const int dir = open_any_length(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return errno;
  walk(dir, folder, 1, out);
  // std::string compares as unsigned bytes (char_traits<char>): byte order.
  std::sort(out.files.begin(), out.files.end());
  return 0;
}

}  // namespace gdedup::fs
