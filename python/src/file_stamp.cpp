#include "file_stamp.h"

#include <filesystem>
#include <system_error>

#include "gdedup/frontend/paths.h"

namespace gdedup::python {

std::string stamp_path(const std::string& path) {
  std::error_code error;
  const std::filesystem::path absolute = std::filesystem::absolute(path, error);
  return error ? path : absolute.lexically_normal().string();
}

std::optional<FileStamp> file_stamp(const std::string& path) {
  fs::FileStatus status;
  if (fs::status_of_path(path, status) != 0) return std::nullopt;
  FileStamp stamp;
  stamp.path = stamp_path(path);
  stamp.device = status.device;
  stamp.inode = status.inode;
  stamp.size = status.size;
  stamp.modified_ns = status.mtime_ns;
  return stamp;
}

}  // namespace gdedup::python
