#include "io/fd_source.h"

#include <algorithm>
#include <cerrno>

#include "fs/file_ops.h"
#include "gdedup/error.h"
#include "gdedup/frontend/path_text.h"
#include "gdedup/frontend/paths.h"
#include "io/input_changed.h"
#include "io/input_file.h"
#include "io/mapped_bytes.h"

namespace gdedup::io {

std::unique_ptr<FdSource> FdSource::open(const std::string& path) {
  fs::File file;
  if (const int err = fs::open_for_reading(path, file)) {
    throw cannot_open_input(path, err);
  }
  // Opening a directory succeeds on Linux; say so now rather than at the
  // first read, with the same wording as a failed open.
  fs::FileStatus status;
  if (fs::status_of(file.fd(), status) == 0 && status.type == fs::FileStatus::Type::kDirectory) {
    throw cannot_open_input(path, EISDIR);
  }
  return std::make_unique<FdSource>(file.release(), path, true);
}

std::unique_ptr<FdSource> FdSource::standard_input() {
  return std::make_unique<FdSource>(0, "standard input", false);
}

FdSource::FdSource(int fd, std::string name, bool owned)
    : fd_(fd), owned_(owned), name_(std::move(name)) {
  fs::FileStatus status;
  if (fs::status_of(fd_, status) == 0 && status.regular()) {
    // Standard input redirected from a file is read from where it stands.
    const int64_t at = fs::position(fd_);
    start_ = at > 0 ? static_cast<uint64_t>(at) : 0;
    size_ = status.size > start_ ? status.size - start_ : 0;
    mtime_ns_ = status.mtime_ns;
    // Doubles the kernel's read-ahead window: our reads are strictly forward.
    fs::advise_sequential(fd_);
  }
}

void FdSource::check_unchanged(bool cut) const {
  if (!size_) return;
  fs::FileStatus status;
  const uint64_t was = start_ + *size_;
  if (fs::status_of(fd_, status) != 0) {
    if (!cut) return;
    status.size = was;
    status.mtime_ns = mtime_ns_;
  }
  const uint64_t now = status.size;
  const bool same = now == was && status.mtime_ns == mtime_ns_;
  if (cut && same) throw unreadable_mapping_error(name_, bytes_read_);
  if (!cut && same && start_ + bytes_read_ == now) return;
  throw input_changed_error(name_, was, now,
                            "after " + std::to_string(bytes_read_) + " bytes were read");
}

FdSource::~FdSource() {
  if (owned_) fs::close_fd(fd_);
}

size_t FdSource::read(char* buf, size_t capacity) {
  if (at_end_) return 0;
  long n = fs::read_some(fd_, buf, capacity);
  if (n < 0) {
    throw Error("cannot read input " + name_ + " at byte offset " + std::to_string(bytes_read_) +
                    ": " + fs::error_text(errno) + ".",
                ErrorKind::io);
  }
  // A terminal gives 0 at Ctrl-D and data again afterwards: the first 0 ends
  // the input, so the "stays 0" promise holds. A regular file must end as
  // it was opened: one truncated, grown or rewritten meanwhile would give an
  // output of neither version.
  if (n == 0) {
    check_unchanged();
    at_end_ = true;
  }
  bytes_read_ += static_cast<uint64_t>(n);
  return static_cast<size_t>(n);
}

}  // namespace gdedup::io

namespace gdedup::io {

std::shared_ptr<MappedBytes> FdSource::map_rest(uint64_t min_bytes) {
  if (!size_ || at_end_ || *size_ - bytes_read_ < std::max<uint64_t>(min_bytes, 1)) return nullptr;
  mapped_ = MappedBytes::map(fd_, start_ + bytes_read_, *size_ - bytes_read_);
  mapped_from_ = bytes_read_;
  return mapped_;
}

bool FdSource::unread(size_t bytes) {
  if (!size_ || mapped_ || bytes > bytes_read_) return false;
  if (fs::seek(fd_, start_ + bytes_read_ - bytes) != 0) return false;
  bytes_read_ -= bytes;
  at_end_ = false;
  return true;
}

void FdSource::mapped_to(uint64_t bytes) {
  bytes_read_ = mapped_from_ + bytes;
  if (mapped_->cut()) check_unchanged(true);
  if (bytes_read_ == *size_) {
    check_unchanged();
    at_end_ = true;
  }
}

}  // namespace gdedup::io
