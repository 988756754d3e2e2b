// Plain bytes from a file descriptor: a file opened by path, or standard input.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "io/byte_source.h"

namespace gdedup::io {

class FdSource final : public ByteSource {
 public:
  // Opens a file for sequential reading. Throws gdedup::Error naming the path
  // and the reason (missing, a directory, no permission).
  static std::unique_ptr<FdSource> open(const std::string& path);
  // Standard input, named "standard input"; fd 0 is left open at the end.
  static std::unique_ptr<FdSource> standard_input();

  // Reads from fd; closes it at destruction when `owned`.
  FdSource(int fd, std::string name, bool owned);
  ~FdSource() override;
  FdSource(const FdSource&) = delete;
  FdSource& operator=(const FdSource&) = delete;

  // At the end of a regular file, throws gdedup::Error if it was truncated,
  // grown or written to since it was opened.
  size_t read(char* buf, size_t capacity) override;
  const std::string& name() const override { return name_; }
  uint64_t raw_bytes_read() const override { return bytes_read_; }
  std::optional<uint64_t> raw_size() const override { return size_; }
  std::shared_ptr<MappedBytes> map_rest(uint64_t min_bytes) override;
  void mapped_to(uint64_t bytes) override;
  bool unread(size_t bytes) override;

 private:
  // Throws unless the file still has the size and time it was opened with
  // and every byte of it was read; always when `cut` (a mapping of it lost
  // pages), unless the file cannot be looked at.
  void check_unchanged(bool cut = false) const;

  int fd_;
  bool owned_;
  bool at_end_ = false;
  std::string name_;
  uint64_t bytes_read_ = 0;
  // Regular files: the size from the offset reading starts at, and the
  // modification time, both as opened.
  std::optional<uint64_t> size_;
  uint64_t start_ = 0;
  int64_t mtime_ns_ = 0;
  // map_rest(): the mapping and the bytes read before it.
  std::shared_ptr<MappedBytes> mapped_;
  uint64_t mapped_from_ = 0;
};

}  // namespace gdedup::io
