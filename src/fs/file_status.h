// What the OS says of a file (stat(2), fstat(2)), in the terms the engine
// asks about: its type, its size, its identity and when it last changed.
#pragma once

#include <cstdint>
#include <string>

namespace gdedup::fs {

struct FileStatus {
  enum class Type { kRegular, kDirectory, kLink, kOther };
  Type type = Type::kOther;
  uint64_t size = 0;
  uint64_t device = 0;  // device and inode: the file's identity
  uint64_t inode = 0;
  uint32_t owner = 0;   // user id
  uint32_t permissions = 0;  // the mode's permission bits (07777)
  int64_t mtime_ns = 0;  // last modification, nanoseconds since 1970

  bool regular() const { return type == Type::kRegular; }
  bool directory() const { return type == Type::kDirectory; }
  bool same_file(const FileStatus& other) const {
    return device == other.device && inode == other.inode;
  }
};

// fstat(2) of `fd`: 0 or an errno.
int status_of(int fd, FileStatus& out);
// stat(2) of `path`, following links: 0 or an errno. Unlike opening, it
// never waits (a named pipe opened for reading waits for a writer).
int status_of_path(const std::string& path, FileStatus& out);
// lstat(2): a symbolic link at `path` is described itself (Type::kLink).
int status_of_name(const std::string& path, FileStatus& out);

// Whether this process may write `path` (access(2) with W_OK): 0 or an errno.
int may_write(const std::string& path);

}  // namespace gdedup::fs
