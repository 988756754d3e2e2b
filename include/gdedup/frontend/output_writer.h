// Buffered output of records, each followed by a separator ('\n' unless
// set_separator() says otherwise), to a file or standard output.
//
// The kernel writes run on a writer thread of the writer's own, so that the
// thread that calls write_record() (the pipeline's filter thread) only
// copies records into a buffer. There are kBuffers buffers of the size given
// at creation (2 MiB by default): the calling thread fills one while the
// writer thread hands the full ones, in order, to the kernel (write(2)) and
// hashes them; when every other buffer is still in flight, the calling
// thread waits for one (back-pressure), so the writer holds at most
// kBuffers x the buffer size (6 MiB by default). The thread and the buffers
// past the first start only when a first buffer fills: an output smaller
// than one buffer is written by the calling thread at flush() or close(),
// as before. flush(), sync() and close() wait for every buffer in flight
// and then write the rest on the calling thread; a record of at least a
// buffer's size is written from the caller's memory the same way, after the
// buffers before it. The thread never outlives the writer (moves carry it
// along; close() and the destructor join it). If no thread can be started,
// every write is made on the calling thread.
//
// Broken pipes: the writer needs SIGPIPE ignored (ignore_sigpipe(), once at
// start), or the first write to a closed pipe kills the process before any
// error can be seen. With it ignored, such a write throws an Error of kind
// broken_pipe, which the command line treats as a quiet end
// (`gdedup ... | head`).
//
// What the output holds is known at every moment: the writer counts whole
// records and hashes (XXH3-64) the bytes it hands to the kernel, so that a
// checkpoint can record them and a resume can check them, and a write that
// fails midway (a full disk) cuts a regular file back to its last whole
// record instead of leaving a partial one at its end. A failed write, on
// either thread, is thrown by the call that meets it or, for one of the
// writer thread, by the next write_record(), write(), flush(), sync() or
// close(); from then on the writer writes nothing more, and every such call
// up to and including close() (which still closes the file) throws the same
// error. The records given after the failure are dropped: stored() does not
// count them.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "gdedup/error.h"

namespace gdedup::io {

// Sets SIGPIPE to be ignored for the whole process.
void ignore_sigpipe();

// The first `bytes` bytes of an output: `records` whole records, whose
// XXH3-64 is `checksum`.
struct OutputPrefix {
  uint64_t bytes = 0;
  uint64_t records = 0;
  uint64_t checksum = 0;
};

class OutputWriter {
 public:
  static constexpr size_t kDefaultBuffer = size_t{2} << 20;
  // Buffers a writer holds at most: the one being filled and those in
  // flight on the writer thread.
  static constexpr size_t kBuffers = 3;

  // Creates `path` or cuts an existing regular file to 0 bytes; "-" is
  // standard output. A symbolic link at `path` is followed only when it is
  // trusted (fs::trusted_link: the user's own, or the folder owner's).
  // `what` names the file in messages.
  static OutputWriter create(const std::string& path, size_t buffer = kDefaultBuffer,
                             const std::string& what = "output");
  // Continues a run in the file open at `fd` for reading and writing, named
  // `name` in messages, which the writer takes over (and closes, also when
  // it throws): checks that it starts with `prefix` (length and checksum),
  // cuts it to prefix.bytes and writes from there. Throws gdedup::Error,
  // leaving the file's bytes alone, when it does not: it is then not the
  // output the checkpoint counted.
  static OutputWriter continue_file(int fd, std::string name, const OutputPrefix& prefix,
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
  // call close() to learn whether the output is complete. Joins the writer
  // thread either way.
  ~OutputWriter();

  // The byte write_record() puts after each record: '\n', or '\0' for
  // NUL-separated records.
  void set_separator(char separator) { separator_ = separator; }

  // No checkpoint will record what the output holds: the writer stops
  // hashing the bytes it writes (0.1 ns a byte, on the writer thread) and
  // stored() gives 0 for the checksum from now on. Only before the first
  // write; later calls change nothing.
  void skip_checksum();

  // Appends the record and the separator.
  void write_record(const char* data, size_t size) { write_records(data, size, 1); }
  // Appends `count` records that lie back to back at `data`, each but the
  // last followed there by the separator: the `size` bytes from the first
  // record's first byte to the last one's last, then the separator. One copy
  // for a run of records kept together instead of one a record. Should the
  // run straddle buffers and a write fail, the output is cut back to the
  // record before the run (stored() says so).
  void write_records(const char* data, size_t size, uint64_t count) {
    // strict: the separator needs a byte too. A failure of the writer
    // thread takes the slow path, whose write() throws it.
    if (size < capacity_ - used_ && !failed_->load(std::memory_order_relaxed)) {
      std::memcpy(buffer_.get() + used_, data, size);
      used_ += size;
      buffer_[used_++] = separator_;
    } else {
      write(data, size);
      write(&separator_, 1);
    }
    end_records(count);
  }
  // Appends a record of fixed size as it is, with no '\n' (u64 output).
  void write_fixed_record(const char* data, size_t size) {
    write(data, size);
    end_records(1);
  }
  // Appends bytes as they are, not counted as a record.
  void write(const char* data, size_t size);
  // The bytes written so far end a whole part of the output, though no
  // record ends there (a Parquet file's row groups, at a checkpoint):
  // stored() reaches here once they are handed to the kernel.
  void end_part() { record_end_ = offset_ + used_; }

  // Hands the buffered bytes to the kernel: waits for the buffers in flight
  // and writes the one being filled.
  void flush();
  // flush() and then fsync: the bytes so far survive a crash (checkpoints).
  void sync();
  // flush() and close the file; close errors count (NFS reports late ones
  // there). Further writes are a logic error.
  void close();

  // Bytes written so far, buffered ones included (also those in flight),
  // plus the starting offset: the output's length once flushed.
  uint64_t bytes_written() const { return offset_ + used_; }
  // What the output surely holds: the whole records handed to the kernel
  // (by either thread; while buffers are in flight it grows as they land).
  // After a failed write this is what a regular file was cut back to. The
  // checksum is that of the whole output, so it is set only when nothing is
  // buffered or in flight and the last write ended a record (after flush()
  // between records, as checkpoints do), else 0.
  OutputPrefix stored() const;
  const std::string& name() const;

 private:
  // What the kernel side holds (fd, checksum, stored prefix, the failure)
  // and the writer thread with its queue; on the heap, so that a move leaves
  // the thread's view of it in place.
  struct Stage;

  void end_records(uint64_t count) {
    records_ += count;
    record_end_ = offset_ + used_;
  }
  // Queues the buffer being filled for the writer thread (starting it on
  // first use) and takes the next free buffer, waiting for one if need be.
  void hand_off();
  // Waits for the buffers in flight, then writes `size` bytes at `data` on
  // this thread; the prefix stored once they are written ends at
  // record_end_.
  void write_now(const char* data, size_t size);
  // Throws the failure the writer met, if any, with offset_ set to the
  // bytes the kernel holds and the buffer spent.
  void throw_if_failed();

  std::unique_ptr<Stage> stage_;
  const std::atomic<bool>* failed_;  // the stage's: set once a write failed
  std::unique_ptr<char[]> buffer_;    // the one being filled
  size_t capacity_ = 0;
  size_t used_ = 0;
  char separator_ = '\n';
  uint64_t offset_ = 0;      // bytes handed off (to the kernel or the writer thread),
                             // plus the start offset
  uint64_t records_ = 0;     // whole records written, buffered ones included
  uint64_t record_end_ = 0;  // where the last whole record ends
};

}  // namespace gdedup::io
