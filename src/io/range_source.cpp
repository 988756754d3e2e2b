#include "io/range_source.h"

#include <algorithm>
#include <cerrno>

#include "fs/file_ops.h"
#include "gdedup/error.h"
#include "gdedup/frontend/path_text.h"
#include "io/input_changed.h"
#include "io/input_file.h"
#include "io/mapped_bytes.h"

namespace gdedup::io {

RangeSource::RangeSource(const std::string& path, uint64_t begin, uint64_t end, FileStamp stamp)
    : name_(path), begin_(begin), end_(end), at_(begin), stamp_(stamp) {
  fs::File file;
  if (const int err = fs::open_for_reading(path, file)) {
    throw cannot_open_input(path, err);
  }
  fd_ = file.release();
  check_unchanged();
  fs::advise_sequential(fd_);
}

RangeSource::~RangeSource() { fs::close_fd(fd_); }

void RangeSource::check_unchanged(bool cut) const {
  fs::FileStatus status;
  if (const int err = fs::status_of(fd_, status)) {
    throw Error("cannot read input " + name_ + ": " + fs::error_text(err) + ".", ErrorKind::io);
  }
  const bool same = status.size == stamp_.size && status.mtime_ns == stamp_.mtime_ns;
  if (cut && same) throw unreadable_mapping_error(name_, at_);
  if (!cut && same) return;
  throw input_changed_error(name_, stamp_.size, status.size,
                            "at byte offset " + std::to_string(at_));
}

size_t RangeSource::read(char* buf, size_t capacity) {
  if (at_ >= end_) return 0;
  const size_t want = static_cast<size_t>(std::min<uint64_t>(capacity, end_ - at_));
  const long n = fs::pread_some(fd_, buf, want, at_);
  if (n < 0) {
    throw Error("cannot read input " + name_ + " at byte offset " + std::to_string(at_) + ": " +
                    fs::error_text(errno) + ".",
                ErrorKind::io);
  }
  // A file cut short ends before the range does; one changed anywhere is
  // caught at the range's end.
  if (n == 0) {
    check_unchanged();
    throw Error("input " + name_ + " ended at byte offset " + std::to_string(at_) +
                    " while it was being read, before its planned size of " +
                    std::to_string(stamp_.size) + " bytes.",
                ErrorKind::input_changed);
  }
  at_ += static_cast<uint64_t>(n);
  if (at_ == end_) check_unchanged();
  return static_cast<size_t>(n);
}

std::shared_ptr<MappedBytes> RangeSource::map_rest(uint64_t min_bytes) {
  if (end_ - at_ < std::max<uint64_t>(min_bytes, 1)) return nullptr;
  mapped_ = MappedBytes::map(fd_, at_, end_ - at_);
  mapped_from_ = at_;
  return mapped_;
}

void RangeSource::mapped_to(uint64_t bytes) {
  at_ = mapped_from_ + bytes;
  if (mapped_->cut() || at_ == end_) check_unchanged(mapped_->cut());
}

}  // namespace gdedup::io
