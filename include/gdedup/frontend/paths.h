// What the OS says of a path, and what a job may do with it: the questions a
// front end asks before a job writes anything (the gdedup command's are in
// src/job/preflight.cpp), so that a typo costs nothing. Part of the OS layer
// (src/fs): calls return 0 or an errno and leave the words to the caller,
// who may use error_text().
#pragma once

#include <cstdint>
#include <string>

namespace gdedup::fs {

// What stat(2) says of a file, in the terms the engine asks about: its type,
// its size, its identity and when it last changed.
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
  // Two names (or descriptors) of one file, whatever the spelling or links.
  bool same_file(const FileStatus& other) const {
    return device == other.device && inode == other.inode;
  }
};

// unlink(2): 0 or an errno.
int unlink_file(const std::string& path);

// fstat(2) of `fd`: 0 or an errno.
int status_of(int fd, FileStatus& out);
// stat(2) of `path`, following links: 0 or an errno. Unlike opening, it
// never waits (a named pipe opened for reading waits for a writer).
int status_of_path(const std::string& path, FileStatus& out);
// lstat(2): a symbolic link at `path` is described itself (Type::kLink).
int status_of_name(const std::string& path, FileStatus& out);

// Whether this process may write `path` (access(2) with W_OK): 0 or an errno.
int may_write(const std::string& path);

// realpath(3): the name `path` leads to through every link; "" when it cannot
// be resolved (a missing file, a loop).
std::string real_path(const std::string& path);
// `path` from the root, its "." and ".." resolved by their text (no link is
// followed; the file need not exist); `path` itself when the working folder
// cannot be found.
std::string absolute_path(const std::string& path);
// The folder holding `path` ("." for a bare name).
std::string containing_folder(const std::string& path);

// Whether a job follows the symbolic link at `path` to write the file it
// leads to. A link is trusted, as with Linux's fs.protected_symlinks, when it
// belongs to the user running the job or to the owner of the folder it lies
// in (/dev/stdout is root's link in root's /dev). A link someone else
// planted in a shared folder is not.
bool trusted_link(const std::string& path);

// strerror(err) without the thread-safety trap of strerror().
std::string error_text(int err);

}  // namespace gdedup::fs
