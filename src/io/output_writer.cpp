#include "io/output_writer.h"

#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

#include "io/sys.h"

namespace gdedup::io {

void ignore_sigpipe() { std::signal(SIGPIPE, SIG_IGN); }

OutputWriter OutputWriter::create(const std::string& path, size_t buffer) {
  if (path == "-") return OutputWriter(STDOUT_FILENO, "standard output", false, 0, buffer);
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) {
    throw Error("cannot create output " + path + ": " + sys::error_text(errno) + ".");
  }
  return OutputWriter(fd, path, true, 0, buffer);
}

OutputWriter OutputWriter::open_at(const std::string& path, uint64_t offset, size_t buffer) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    throw Error("cannot open output " + path + " to resume: " + sys::error_text(errno) +
                ".");
  }
  OutputWriter w(fd, path, true, offset, buffer);
  struct stat st {};
  if (::fstat(fd, &st) != 0) w.fail(errno);
  if (static_cast<uint64_t>(st.st_size) < offset) {
    throw Error("cannot resume output " + path + ": it holds " +
                std::to_string(st.st_size) + " bytes, fewer than the " +
                std::to_string(offset) +
                " the checkpoint recorded; it is not the output of that run.");
  }
  if (::ftruncate(fd, static_cast<off_t>(offset)) != 0) w.fail(errno);
  if (::lseek(fd, static_cast<off_t>(offset), SEEK_SET) < 0) w.fail(errno);
  return w;
}

OutputWriter::OutputWriter(int fd, std::string name, bool owned, uint64_t offset,
                           size_t buffer)
    : fd_(fd),
      owned_(owned),
      name_(std::move(name)),
      buffer_(new char[buffer > 0 ? buffer : 1]),
      capacity_(buffer > 0 ? buffer : 1),
      offset_(offset) {}

OutputWriter::OutputWriter(OutputWriter&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      owned_(std::exchange(other.owned_, false)),
      name_(std::move(other.name_)),
      buffer_(std::move(other.buffer_)),
      capacity_(std::exchange(other.capacity_, 0)),
      used_(std::exchange(other.used_, 0)),
      offset_(other.offset_) {}

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
    offset_ = other.offset_;
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

void OutputWriter::fail(int err) const {
  std::string msg = "cannot write to " + name_ + ": " + sys::error_text(err) + ".";
  if (err == EPIPE) throw BrokenPipe(msg);
  throw Error(msg);
}

void OutputWriter::write_out(const char* data, size_t size) {
  if (int err = sys::write_all(fd_, data, size)) fail(err);
  offset_ += size;
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
  write("\n", 1);
}

void OutputWriter::sync() {
  flush();
  // Pipes and terminals cannot be synced (EINVAL): nothing to make durable.
  if (::fsync(fd_) != 0 && errno != EINVAL && errno != EROFS) fail(errno);
}

void OutputWriter::close() {
  if (fd_ < 0) return;
  try {
    flush();
  } catch (...) {
    if (owned_) sys::close_fd(fd_);
    fd_ = -1;
    throw;
  }
  int fd = std::exchange(fd_, -1);
  if (owned_) {
    if (int err = sys::close_fd(fd)) fail(err);
  }
}

}  // namespace gdedup::io
