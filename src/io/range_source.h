// Bytes [begin, end) of a plain regular file: one piece of a file that
// several threads read at once (pipeline/piece_plan.h). The file must be
// the one the range was planned on: its size and modification time are
// checked when it is opened and again when the range has been read, so a
// file truncated, grown or rewritten meanwhile fails (ErrorKind::input_changed)
// instead of giving records of neither version.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "gdedup/frontend/paths.h"
#include "io/byte_source.h"

namespace gdedup::io {

// What a file was like when its ranges were planned.
struct FileStamp {
  uint64_t size = 0;
  int64_t mtime_ns = 0;
};

class RangeSource final : public ByteSource {
 public:
  // Opens `path`; throws gdedup::Error naming it when it cannot be opened or
  // no longer matches `stamp`.
  RangeSource(const std::string& path, uint64_t begin, uint64_t end, FileStamp stamp);
  ~RangeSource() override;
  RangeSource(const RangeSource&) = delete;
  RangeSource& operator=(const RangeSource&) = delete;

  size_t read(char* buf, size_t capacity) override;
  const std::string& name() const override { return name_; }
  uint64_t raw_bytes_read() const override { return at_ - begin_; }
  std::optional<uint64_t> raw_size() const override { return end_ - begin_; }
  std::shared_ptr<MappedBytes> map_rest(uint64_t min_bytes) override;
  void mapped_to(uint64_t bytes) override;

 private:
  // Throws input_changed unless the file still matches stamp_; always when
  // `cut` (a mapping of it lost pages).
  void check_unchanged(bool cut = false) const;

  int fd_ = -1;
  std::string name_;
  uint64_t begin_;
  uint64_t end_;
  uint64_t at_;  // the next byte to read
  FileStamp stamp_;
  std::shared_ptr<MappedBytes> mapped_;  // map_rest()
  uint64_t mapped_from_ = 0;             // at_ when mapped
};

}  // namespace gdedup::io
