#include "gdedup/frontend/paths.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "fs/long_path.h"

namespace gdedup::fs {
namespace {

FileStatus from_stat(const struct stat& st) {
  FileStatus s;
  s.type = S_ISREG(st.st_mode)   ? FileStatus::Type::kRegular
           : S_ISDIR(st.st_mode) ? FileStatus::Type::kDirectory
           : S_ISLNK(st.st_mode) ? FileStatus::Type::kLink
                                 : FileStatus::Type::kOther;
  s.size = static_cast<uint64_t>(st.st_size);
  s.device = static_cast<uint64_t>(st.st_dev);
  s.inode = static_cast<uint64_t>(st.st_ino);
  s.owner = static_cast<uint32_t>(st.st_uid);
  s.permissions = static_cast<uint32_t>(st.st_mode & 07777);
  s.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  return s;
}

}  // namespace

int status_of(int fd, FileStatus& out) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return errno;
  out = from_stat(st);
  return 0;
}

int status_of_path(const std::string& path, FileStatus& out) {
  struct stat st {};
  if (const int err = stat_any_length(path, st, true)) return err;
  out = from_stat(st);
  return 0;
}

int status_of_name(const std::string& path, FileStatus& out) {
  struct stat st {};
  if (const int err = stat_any_length(path, st, false)) return err;
  out = from_stat(st);
  return 0;
}

int may_write(const std::string& path) { return ::access(path.c_str(), W_OK) == 0 ? 0 : errno; }

}  // namespace gdedup::fs
