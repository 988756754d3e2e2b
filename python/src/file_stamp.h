// What tells one version of a filter file from another, so that a save
// does not replace keys another process saved since this filter read the
// file: every gdedup writer replaces the file by rename (a new inode), and
// a write in place changes its size or modification time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace gdedup::python {

struct FileStamp {
  std::string path;  // absolute, as saves to it are matched
  uint64_t device = 0;
  uint64_t inode = 0;
  uint64_t size = 0;
  int64_t modified_ns = 0;

  bool operator==(const FileStamp& o) const {
    return path == o.path && device == o.device && inode == o.inode && size == o.size &&
           modified_ns == o.modified_ns;
  }
  bool operator!=(const FileStamp& o) const { return !(*this == o); }
};

// The file at `path` now, or nullopt when there is none (or it cannot be
// examined: then there is nothing to compare).
std::optional<FileStamp> file_stamp(const std::string& path);

// `path` as FileStamp::path holds it.
std::string stamp_path(const std::string& path);

}  // namespace gdedup::python
