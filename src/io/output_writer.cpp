#include "gdedup/frontend/output_writer.h"

#include <unistd.h>

#include <cerrno>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <new>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "fs/file_ops.h"
#include "fs/signals.h"
#include "gdedup/frontend/path_text.h"
#include "gdedup/frontend/paths.h"

namespace gdedup::io {

namespace {

struct Hasher {
  Hasher() { XXH3_64bits_reset(&state); }
  XXH3_state_t state;
};

// What a moved-from writer's failed_ points to: every call takes the slow
// path, which finds no stage.
const std::atomic<bool> kNoStage{true};

constexpr size_t kVerifyChunk = size_t{1} << 20;

bool is_regular(int fd) {
  fs::FileStatus status;
  return fs::status_of(fd, status) == 0 && status.regular();
}

// A regular file that already holds bytes; an empty one needs no truncate.
bool holds_bytes(int fd) {
  fs::FileStatus status;
  return fs::status_of(fd, status) == 0 && status.regular() && status.size > 0;
}

[[noreturn]] void cannot_open(const std::string& doing, const std::string& path, int err) {
  if (err == ELOOP) {
    throw Error(doing + " " + fs::printable(path) +
                    ": it is a symbolic link that belongs to another user, "
                    "and gdedup follows no link someone else may have planted; remove it, or "
                    "name the file it points to.",
                ErrorKind::io);
  }
  throw Error(doing + " " + fs::printable(path) + ": " + fs::error_text(err) + ".",
              ErrorKind::io);
}

}  // namespace

// The kernel side. fd, hash and kernel_offset belong to the thread that
// writes: the writer thread while a job is queued, else the calling thread
// (which only writes after waiting for the queue to empty). The rest is
// guarded by `mutex`; `failed` is also read without it, as a hint.
struct OutputWriter::Stage {
  struct Job {
    std::unique_ptr<char[]> data;
    size_t size = 0;
    // The prefix stored once the job is written.
    uint64_t record_end = 0;
    uint64_t records = 0;
  };

  Stage(int fd_in, std::string name_in, bool owned_in, uint64_t offset)
      : fd(fd_in), owned(owned_in), name(std::move(name_in)), kernel_offset(offset),
        stored{offset, 0, 0} {
    XXH3_64bits_reset(&hash);
  }
  ~Stage() { join(); }

  // Writes on the calling thread, which must own the kernel side; false
  // after recording a failure.
  bool write_out(const char* data, size_t size, uint64_t record_end, uint64_t records) {
    size_t done = 0;
    if (const int err = fs::write_all(fd, name, data, size, &done)) {
      kernel_offset += done;
      record_failure(err);
      return false;
    }
    if (checksummed) XXH3_64bits_update(&hash, data, size);
    kernel_offset += size;
    // Everything before the record in progress is in the kernel now.
    std::lock_guard<std::mutex> lock(mutex);
    stored.bytes = record_end;
    stored.records = records;
    return true;
  }

  // Keeps the first failure, with the message the caller will get. A write
  // cut short by a full disk leaves part of a record at the end of the
  // file; it is cut off, so that the output ends with a whole record.
  void record_failure(int err) {
    if (failed.load(std::memory_order_relaxed)) return;
    std::string msg = "cannot write to " + name + ": " + fs::error_text(err);
    ErrorKind kind = ErrorKind::io;
    if (err == EFAULT) {
      // Long runs of records go to the kernel straight from a mapped
      // input, and pages that input lost since (cut short by another
      // program) are no address to copy from.
      msg += " (the records were being copied from an input that another program cut short "
             "meanwhile)";
      kind = ErrorKind::input_changed;
    }
    if (err == EPIPE) {
      kind = ErrorKind::broken_pipe;
    } else if (kernel_offset > stored.bytes && is_regular(fd)) {
      if (fs::truncate(fd, name, stored.bytes) == 0) {
        kernel_offset = stored.bytes;
        msg += "; the incomplete record at its end was cut off";
      } else {
        msg += "; it may end with an incomplete record";
      }
    }
    std::lock_guard<std::mutex> lock(mutex);
    failure = msg + ".";
    failure_kind = kind;
    failed.store(true, std::memory_order_release);
    changed.notify_all();
  }

  // The writer thread: writes the queued jobs in order; after a failure it
  // only gives their buffers back.
  void run() {
    std::unique_lock<std::mutex> lock(mutex);
    for (;;) {
      changed.wait(lock, [&] { return stop || !queue.empty(); });
      if (queue.empty()) return;
      Job& job = queue.front();  // stays put: the caller only appends
      const bool write = !failed.load(std::memory_order_relaxed);
      lock.unlock();
      if (write) write_out(job.data.get(), job.size, job.record_end, job.records);
      lock.lock();
      spare.push_back(std::move(job.data));
      queue.pop_front();
      changed.notify_all();
    }
  }

  // Waits until no job is queued: the calling thread owns the kernel side.
  void wait_idle() {
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait(lock, [&] { return queue.empty(); });
  }

  void join() {
    if (!thread.joinable()) return;
    {
      std::lock_guard<std::mutex> lock(mutex);
      stop = true;
    }
    changed.notify_all();
    thread.join();
  }

  int fd;
  bool owned;
  std::string name;
  XXH3_state_t hash;
  bool checksummed = true;  // set before the first write (skip_checksum)
  uint64_t kernel_offset;  // bytes the kernel took, plus the start offset

  std::mutex mutex;
  std::condition_variable changed;  // a job queued, done or failed; stop
  OutputPrefix stored;              // checksum unused: see stored()
  std::atomic<bool> failed{false};
  std::string failure;  // set once, before `failed`
  ErrorKind failure_kind = ErrorKind::io;
  std::deque<Job> queue;  // the front one is being written
  std::vector<std::unique_ptr<char[]>> spare;
  size_t buffers = 1;       // allocated, the caller's included
  bool stop = false;
  bool no_thread = false;   // none could be started: write on the caller's
  std::thread thread;
};

void ignore_sigpipe() { fs::ignore_broken_pipe_signal(); }

OutputWriter OutputWriter::create(const std::string& path, size_t buffer,
                                  const std::string& what) {
  if (path == "-") return OutputWriter(STDOUT_FILENO, "standard output", false, 0, buffer);
  fs::File file;
  if (const int err = fs::open_for_writing(path, file)) {
    cannot_open("cannot create " + what, path, err);
  }
  // Pipes and devices cannot be cut (and need not be). A file just created
  // is not cut either: on ext4 a truncate to 0 marks the file as "replaced
  // via truncate", and its close then starts writeback of the whole output
  // (auto_da_alloc), which cost 1.2x on a 400 MB output.
  if (holds_bytes(file.fd())) {
    if (const int err = file.truncate(0)) cannot_open("cannot create " + what, path, err);
  }
  return OutputWriter(file.release(), path, true, 0, buffer);
}

OutputWriter OutputWriter::continue_file(int fd, std::string name, const OutputPrefix& prefix,
                                         size_t buffer) {
  fs::File file(fd, std::move(name));
  const std::string path = file.name();
  fs::FileStatus status;
  if (const int err = fs::status_of(file.fd(), status)) {
    cannot_open("cannot read output", path, err);
  }
  if (status.size < prefix.bytes) {
    throw Error("cannot resume output " + fs::printable(path) + ": it holds " +
                    std::to_string(status.size) +
                    " bytes, fewer than the " + std::to_string(prefix.bytes) +
                    " the checkpoint recorded; it is not the output of that run.",
                ErrorKind::resume_mismatch);
  }
  // One sequential read of what the interrupted run wrote: an output edited
  // since would make the resumed one differ from an uninterrupted run's.
  auto hasher = std::make_unique<Hasher>();
  std::vector<char> chunk(kVerifyChunk);
  for (uint64_t at = 0; at < prefix.bytes;) {
    const uint64_t want = std::min<uint64_t>(kVerifyChunk, prefix.bytes - at);
    const int64_t got = fs::read_at(file.fd(), chunk.data(), want, at);
    if (got < 0) cannot_open("cannot read output", path, errno);
    if (got == 0) break;  // cut short meanwhile: the checksum tells
    XXH3_64bits_update(&hasher->state, chunk.data(), static_cast<size_t>(got));
    at += static_cast<uint64_t>(got);
  }
  if (XXH3_64bits_digest(&hasher->state) != prefix.checksum) {
    throw Error("cannot resume output " + fs::printable(path) + ": its first " +
                    std::to_string(prefix.bytes) +
                    " bytes are not those the interrupted run "
                    "wrote (their checksum differs from the checkpoint's), so it was changed "
                    "after the checkpoint and a resumed run would not give the output of one "
                    "uninterrupted run; restore the output, or delete the checkpoint and start "
                    "over.",
                ErrorKind::resume_mismatch);
  }
  OutputWriter w(file.release(), path, true, prefix.bytes, buffer);
  Stage& s = *w.stage_;
  XXH3_copyState(&s.hash, &hasher->state);
  w.records_ = prefix.records;
  s.stored = prefix;
  if (const int err = fs::truncate(s.fd, path, prefix.bytes)) s.record_failure(err);
  if (const int err = fs::seek(s.fd, prefix.bytes)) s.record_failure(err);
  w.throw_if_failed();
  return w;
}

OutputWriter::OutputWriter(int fd, std::string name, bool owned, uint64_t offset,
                           size_t buffer)
    : stage_(std::make_unique<Stage>(fd, std::move(name), owned, offset)),
      failed_(&stage_->failed),
      buffer_(new char[buffer > 0 ? buffer : 1]),
      capacity_(buffer > 0 ? buffer : 1),
      offset_(offset),
      record_end_(offset) {}

OutputWriter::OutputWriter(OutputWriter&& other) noexcept
    : stage_(std::move(other.stage_)),
      failed_(std::exchange(other.failed_, &kNoStage)),
      buffer_(std::move(other.buffer_)),
      capacity_(std::exchange(other.capacity_, 0)),
      used_(std::exchange(other.used_, 0)),
      separator_(other.separator_),
      offset_(other.offset_),
      records_(other.records_),
      record_end_(other.record_end_) {}

OutputWriter& OutputWriter::operator=(OutputWriter&& other) noexcept {
  if (this != &other) {
    if (stage_) {
      try {
        close();
      } catch (const Error&) {
        // As in the destructor.
      }
    }
    stage_ = std::move(other.stage_);  // the old stage joins its thread
    failed_ = std::exchange(other.failed_, &kNoStage);
    buffer_ = std::move(other.buffer_);
    capacity_ = std::exchange(other.capacity_, 0);
    used_ = std::exchange(other.used_, 0);
    separator_ = other.separator_;
    offset_ = other.offset_;
    records_ = other.records_;
    record_end_ = other.record_end_;
  }
  return *this;
}

OutputWriter::~OutputWriter() {
  if (!stage_) return;
  try {
    close();
  } catch (const Error&) {
    // Unreportable here; close() is the way to see it.
  }
  // The stage's destructor joins the thread if close() could not.
}

const std::string& OutputWriter::name() const {
  static const std::string kNone;
  return stage_ ? stage_->name : kNone;
}

void OutputWriter::skip_checksum() {
  if (stage_ && stage_->kernel_offset == offset_ && used_ == 0) stage_->checksummed = false;
}

OutputPrefix OutputWriter::stored() const {
  if (!stage_) return {};
  Stage& s = *stage_;
  std::lock_guard<std::mutex> lock(s.mutex);
  OutputPrefix p = s.stored;
  p.checksum = 0;
  // Nothing buffered or in flight: this thread owns the hash.
  if (s.checksummed && used_ == 0 && s.queue.empty() &&
      !s.failed.load(std::memory_order_relaxed) && p.bytes == s.kernel_offset) {
    p.checksum = XXH3_64bits_digest(&s.hash);
  }
  return p;
}

void OutputWriter::throw_if_failed() {
  if (!stage_) throw Error("write to an output writer that was moved", ErrorKind::failure);
  Stage& s = *stage_;
  if (!s.failed.load(std::memory_order_acquire)) {
    if (s.fd >= 0) return;
    // A logic error, reported rather than written to a closed descriptor
    // (or waited on forever: a closed writer's thread has ended).
    throw Error("write to output " + s.name + " after it was closed", ErrorKind::failure);
  }
  std::string msg;
  ErrorKind kind;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    msg = s.failure;
    kind = s.failure_kind;
  }
  // The records given since the failure are dropped; the kernel offset
  // stays put once a write failed.
  used_ = 0;
  offset_ = s.kernel_offset;
  throw Error(msg, kind);
}

void OutputWriter::hand_off() {
  throw_if_failed();
  Stage& s = *stage_;
  Stage::Job job{std::move(buffer_), std::exchange(used_, 0), record_end_, records_};
  offset_ += job.size;
  std::unique_lock<std::mutex> lock(s.mutex);
  if (!s.thread.joinable() && !s.no_thread) {
    try {
      s.thread = std::thread([&s] { s.run(); });
    } catch (const std::system_error&) {
      s.no_thread = true;  // every write on this thread, as without one
    }
  }
  if (s.no_thread) {
    lock.unlock();
    buffer_ = std::move(job.data);
    s.write_out(buffer_.get(), job.size, job.record_end, job.records);
    throw_if_failed();
    return;
  }
  s.queue.push_back(std::move(job));
  s.changed.notify_all();
  if (s.spare.empty() && s.buffers < kBuffers) {
    ++s.buffers;
    lock.unlock();
    buffer_.reset(new (std::nothrow) char[capacity_]);
    if (buffer_) return;
    lock.lock();  // no memory for another: wait for one in flight
  }
  // Back-pressure: every buffer is in flight.
  s.changed.wait(lock, [&] { return !s.spare.empty(); });
  buffer_ = std::move(s.spare.back());
  s.spare.pop_back();
  lock.unlock();
  throw_if_failed();
}

void OutputWriter::write_now(const char* data, size_t size) {
  stage_->wait_idle();
  throw_if_failed();
  stage_->write_out(data, size, record_end_, records_);
  offset_ += size;
  throw_if_failed();
}

void OutputWriter::flush() {
  if (!stage_ || stage_->fd < 0) return;  // closed or moved: nothing to flush
  // Whatever happens, the buffer is spent: a failed flush is not retried by
  // the destructor with the same bytes.
  const size_t n = std::exchange(used_, 0);
  if (n == 0) {
    stage_->wait_idle();
    throw_if_failed();
    return;
  }
  write_now(buffer_.get(), n);
}

void OutputWriter::write(const char* data, size_t size) {
  if (failed_->load(std::memory_order_relaxed)) throw_if_failed();
  if (size <= capacity_ - used_) {
    std::memcpy(buffer_.get() + used_, data, size);
    used_ += size;
    return;
  }
  if (used_ > 0) hand_off();
  if (size >= capacity_) {
    write_now(data, size);  // big enough to skip the copy
  } else {
    std::memcpy(buffer_.get(), data, size);
    used_ = size;
  }
}

void OutputWriter::sync() {
  flush();
  Stage& s = *stage_;
  // Pipes and terminals cannot be synced: nothing to make durable.
  if (const int err = fs::sync(s.fd, s.name); err != 0 && err != EROFS) {
    s.record_failure(err);
    throw_if_failed();
  }
}

void OutputWriter::close() {
  if (!stage_ || stage_->fd < 0) return;
  Stage& s = *stage_;
  try {
    flush();
  } catch (...) {
    s.join();
    if (s.owned) fs::close_fd(s.fd);
    s.fd = -1;
    throw;
  }
  s.join();
  const int fd = std::exchange(s.fd, -1);
  if (s.owned) {
    if (const int err = fs::close_fd(fd)) {
      s.record_failure(err);
      throw_if_failed();
    }
  }
}

}  // namespace gdedup::io
