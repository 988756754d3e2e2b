// Reading a regular-file input at any offset without moving the offset the
// run will read it from: the size estimate samples inputs here, standard
// input redirected from a file (`gdedup dedup - < big.txt`) as well as paths.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "io/byte_source.h"

namespace gdedup::io {

class RandomAccessInput {
 public:
  // `path` ("-" is standard input) opened for positional reads; null when it
  // is not a regular file (a pipe, a terminal, a device: those are not
  // opened at all). Throws gdedup::Error naming the path when it is missing,
  // a directory or unreadable.
  static std::unique_ptr<RandomAccessInput> open(const std::string& path);
  ~RandomAccessInput();
  RandomAccessInput(const RandomAccessInput&) = delete;
  RandomAccessInput& operator=(const RandomAccessInput&) = delete;

  // Bytes the run will read: from the current offset of standard input, from
  // the start of a path.
  uint64_t size() const { return size_; }
  // The path, or "standard input".
  const std::string& name() const { return name_; }
  // The file's modification time when it was opened.
  int64_t mtime_ns() const { return mtime_ns_; }
  // Copies up to `capacity` bytes from `offset` (counted from where the run
  // starts reading); fewer only at the end. Throws gdedup::Error on a failed
  // read.
  size_t read_at(uint64_t offset, char* buf, size_t capacity) const;
  // Throws gdedup::Error (input_changed) unless the file still has the size
  // and modification time it was opened with: a run that read it positionally
  // up to `offset` would otherwise mix two versions of it.
  void check_unchanged(uint64_t offset) const;
  // The whole input as the run will see it, decoded (open_input()'s
  // detection), read positionally: standard input is left where it was.
  // Valid while this object lives.
  std::unique_ptr<ByteSource> stream() const;

 private:
  RandomAccessInput(int fd, bool owned, std::string name, uint64_t start, uint64_t size,
                    int64_t mtime_ns);

  int fd_;
  bool owned_;
  std::string name_;
  uint64_t start_;  // file offset of the input's first byte
  uint64_t size_;
  int64_t mtime_ns_;  // when opened
};

}  // namespace gdedup::io
