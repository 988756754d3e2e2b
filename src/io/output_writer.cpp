#include "gdedup/output_writer.h"

#include <unistd.h>

#include <cerrno>

#include <utility>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "fs/file_ops.h"
#include "fs/signals.h"
#include "gdedup/paths.h"

namespace gdedup::io {

struct OutputWriter::Hasher {
  Hasher() { XXH3_64bits_reset(&state); }
  XXH3_state_t state;
};

namespace {

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
    throw Error(doing + " " + path +
                    ": it is a symbolic link that belongs to another user, "
                    "and gdedup follows no link someone else may have planted; remove it, or "
                    "name the file it points to.",
                ErrorKind::io);
  }
  throw Error(doing + " " + path + ": " + fs::error_text(err) + ".", ErrorKind::io);
}

}  // namespace

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
    throw Error("cannot resume output " + path + ": it holds " + std::to_string(status.size) +
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
    throw Error("cannot resume output " + path + ": its first " + std::to_string(prefix.bytes) +
                    " bytes are not those the interrupted run "
                    "wrote (their checksum differs from the checkpoint's), so it was changed "
                    "after the checkpoint and a resumed run would not give the output of one "
                    "uninterrupted run; restore the output, or delete the checkpoint and start "
                    "over.",
                ErrorKind::resume_mismatch);
  }
  OutputWriter w(file.release(), path, true, prefix.bytes, buffer);
  w.hasher_ = std::move(hasher);
  w.records_ = prefix.records;
  w.stored_ = prefix;
  if (const int err = fs::truncate(w.fd_, path, prefix.bytes)) w.fail(err);
  if (const int err = fs::seek(w.fd_, prefix.bytes)) w.fail(err);
  return w;
}

OutputWriter::OutputWriter(int fd, std::string name, bool owned, uint64_t offset,
                           size_t buffer)
    : fd_(fd),
      owned_(owned),
      name_(std::move(name)),
      buffer_(new char[buffer > 0 ? buffer : 1]),
      capacity_(buffer > 0 ? buffer : 1),
      offset_(offset),
      record_end_(offset),
      stored_{offset, 0, 0},
      hasher_(std::make_unique<Hasher>()) {}

OutputWriter::OutputWriter(OutputWriter&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      owned_(std::exchange(other.owned_, false)),
      name_(std::move(other.name_)),
      buffer_(std::move(other.buffer_)),
      capacity_(std::exchange(other.capacity_, 0)),
      used_(std::exchange(other.used_, 0)),
      separator_(other.separator_),
      offset_(other.offset_),
      records_(other.records_),
      record_end_(other.record_end_),
      stored_(other.stored_),
      hasher_(std::move(other.hasher_)) {}

OutputWriter& OutputWriter::operator=(OutputWriter&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) {
      try {
        close();
      } catch (const Error&) {
        // As in the destructor.
      }
    }
    fd_ = std::exchange(other.fd_, -1);
    owned_ = std::exchange(other.owned_, false);
    name_ = std::move(other.name_);
    buffer_ = std::move(other.buffer_);
    capacity_ = std::exchange(other.capacity_, 0);
    used_ = std::exchange(other.used_, 0);
    separator_ = other.separator_;
    offset_ = other.offset_;
    records_ = other.records_;
    record_end_ = other.record_end_;
    stored_ = other.stored_;
    hasher_ = std::move(other.hasher_);
  }
  return *this;
}

OutputWriter::~OutputWriter() {
  if (fd_ < 0) return;
  try {
    close();
  } catch (const Error&) {
    // Unreportable here; close() is the way to see it.
  }
}

OutputPrefix OutputWriter::stored() const {
  OutputPrefix p = stored_;
  if (used_ == 0 && stored_.bytes == offset_) p.checksum = XXH3_64bits_digest(&hasher_->state);
  return p;
}

void OutputWriter::fail(int err) {
  std::string msg = "cannot write to " + name_ + ": " + fs::error_text(err);
  if (err == EPIPE) throw Error(msg + ".", ErrorKind::broken_pipe);
  // A write cut short by a full disk leaves part of a record at the end of
  // the file; cut it off, so that the output ends with a whole record.
  if (offset_ > stored_.bytes && is_regular(fd_)) {
    if (fs::truncate(fd_, name_, stored_.bytes) == 0) {
      offset_ = stored_.bytes;
      msg += "; the incomplete record at its end was cut off";
    } else {
      msg += "; it may end with an incomplete record";
    }
  }
  throw Error(msg + ".", ErrorKind::io);
}

void OutputWriter::write_out(const char* data, size_t size) {
  size_t done = 0;
  if (const int err = fs::write_all(fd_, name_, data, size, &done)) {
    offset_ += done;
    fail(err);
  }
  XXH3_64bits_update(&hasher_->state, data, size);
  offset_ += size;
  // Everything before the record in progress is in the kernel now.
  stored_.bytes = record_end_;
  stored_.records = records_;
}

void OutputWriter::flush() {
  if (used_ == 0) return;
  // Whatever happens, the buffer is spent: a failed flush is not retried by
  // the destructor with the same bytes.
  size_t n = std::exchange(used_, 0);
  write_out(buffer_.get(), n);
}

void OutputWriter::write(const char* data, size_t size) {
  if (size <= capacity_ - used_) {
    std::memcpy(buffer_.get() + used_, data, size);
    used_ += size;
    return;
  }
  flush();
  if (size >= capacity_) {
    write_out(data, size);  // big enough to skip the copy
  } else {
    std::memcpy(buffer_.get(), data, size);
    used_ = size;
  }
}

void OutputWriter::write_record_slow(const char* data, size_t size) {
  write(data, size);
  write(&separator_, 1);
  end_record();
}

void OutputWriter::sync() {
  flush();
  // Pipes and terminals cannot be synced: nothing to make durable.
  if (const int err = fs::sync(fd_, name_); err != 0 && err != EROFS) fail(err);
}

void OutputWriter::close() {
  if (fd_ < 0) return;
  try {
    flush();
  } catch (...) {
    if (owned_) fs::close_fd(fd_);
    fd_ = -1;
    throw;
  }
  int fd = std::exchange(fd_, -1);
  if (owned_) {
    if (int err = fs::close_fd(fd)) fail(err);
  }
}

}  // namespace gdedup::io
