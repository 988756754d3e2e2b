// Buffered output of records, each followed by '\n', to a file or standard
// output.
//
// Broken pipes: the writer needs SIGPIPE ignored (ignore_sigpipe(), once at
// start), or the first write to a closed pipe kills the process before any
// error can be seen. With it ignored, such a write throws BrokenPipe, which
// the command line treats as a quiet end (`gdedup ... | head`).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "gdedup/error.h"

namespace gdedup::io {

// The reader of our output went away (EPIPE). Not a failure of ours.
class BrokenPipe : public Error {
 public:
  using Error::Error;
};

// Sets SIGPIPE to be ignored for the whole process.
void ignore_sigpipe();

class OutputWriter {
 public:
  static constexpr size_t kDefaultBuffer = size_t{2} << 20;

  // Creates or truncates `path`; "-" is standard output.
  static OutputWriter create(const std::string& path, size_t buffer = kDefaultBuffer);
  // Opens an existing `path`, cuts it to `offset` bytes and writes from there:
  // resuming after a checkpoint. Throws gdedup::Error when the file is shorter
  // than `offset` (it is not the output the checkpoint wrote).
  static OutputWriter open_at(const std::string& path, uint64_t offset,
                              size_t buffer = kDefaultBuffer);

  // Writes to fd, named `name` in messages; closes it at close() when `owned`.
  // `offset` is what bytes_written() starts from.
  OutputWriter(int fd, std::string name, bool owned, uint64_t offset = 0,
               size_t buffer = kDefaultBuffer);
  OutputWriter(OutputWriter&& other) noexcept;
  OutputWriter& operator=(OutputWriter&& other) noexcept;
  OutputWriter(const OutputWriter&) = delete;
  OutputWriter& operator=(const OutputWriter&) = delete;
  // Flushes and closes if close() was not called, but cannot report errors:
  // call close() to learn whether the output is complete.
  ~OutputWriter();

  // Appends the record and a '\n'.
  void write_record(const char* data, size_t size) {
    if (size < capacity_ - used_) {  // strict: the '\n' needs a byte too
      std::memcpy(buffer_.get() + used_, data, size);
      used_ += size;
      buffer_[used_++] = '\n';
    } else {
      write_record_slow(data, size);
    }
  }
  // Appends bytes as they are.
  void write(const char* data, size_t size);

  // Hands the buffered bytes to the kernel.
  void flush();
  // flush() and then fsync: the bytes so far survive a crash (checkpoints).
  void sync();
  // flush() and close the file; close errors count (NFS reports late ones
  // there). Further writes are a logic error.
  void close();

  // Bytes written so far, buffered ones included, plus the starting offset:
  // the output's length once flushed.
  uint64_t bytes_written() const { return offset_ + used_; }
  const std::string& name() const { return name_; }

 private:
  void write_record_slow(const char* data, size_t size);
  void write_out(const char* data, size_t size);
  [[noreturn]] void fail(int err) const;

  int fd_ = -1;
  bool owned_ = false;
  std::string name_;
  std::unique_ptr<char[]> buffer_;
  size_t capacity_ = 0;
  size_t used_ = 0;
  uint64_t offset_ = 0;  // bytes handed to the kernel, plus the start offset
};

}  // namespace gdedup::io
