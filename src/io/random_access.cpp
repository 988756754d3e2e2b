#include "io/random_access.h"

#include <unistd.h>

#include <cerrno>

#include "fs/file_ops.h"
#include "gdedup/error.h"
#include "gdedup/frontend/path_text.h"
#include "gdedup/frontend/paths.h"
#include "io/input_changed.h"
#include "io/input_file.h"

namespace gdedup::io {

namespace {

// The input from `offset` on, in order, through positional reads of a
// RandomAccessInput that outlives it.
class PositionalSource final : public ByteSource {
 public:
  PositionalSource(const RandomAccessInput& input, std::string name)
      : input_(input), name_(std::move(name)) {}
  size_t read(char* buf, size_t capacity) override {
    const size_t n = input_.read_at(pos_, buf, capacity);
    pos_ += n;
    return n;
  }
  const std::string& name() const override { return name_; }
  uint64_t raw_bytes_read() const override { return pos_; }
  std::optional<uint64_t> raw_size() const override { return input_.size(); }

 private:
  const RandomAccessInput& input_;
  std::string name_;
  uint64_t pos_ = 0;
};

}  // namespace

std::unique_ptr<RandomAccessInput> RandomAccessInput::open(const std::string& path) {
  auto refuse = [&path](int err) { return cannot_open_input(path, err); };
  fs::FileStatus status;
  if (path == "-") {
    const int64_t start = fs::position(STDIN_FILENO);
    if (fs::status_of(STDIN_FILENO, status) != 0 || !status.regular() || start < 0) {
      return nullptr;
    }
    const auto first = static_cast<uint64_t>(start);
    return std::unique_ptr<RandomAccessInput>(new RandomAccessInput(
        STDIN_FILENO, false, "standard input", first,
        status.size > first ? status.size - first : 0, status.mtime_ns));
  }
  // Status first: opening a named pipe would wait for a writer.
  if (const int err = fs::status_of_path(path, status)) throw refuse(err);
  if (status.type == fs::FileStatus::Type::kDirectory) throw refuse(EISDIR);
  if (!status.regular()) return nullptr;
  fs::File file;
  if (const int err = fs::open_for_reading(path, file)) throw refuse(err);
  if (const int err = fs::status_of(file.fd(), status)) throw refuse(err);
  return std::unique_ptr<RandomAccessInput>(
      new RandomAccessInput(file.release(), true, path, 0, status.size, status.mtime_ns));
}

RandomAccessInput::RandomAccessInput(int fd, bool owned, std::string name, uint64_t start,
                                     uint64_t size, int64_t mtime_ns)
    : fd_(fd),
      owned_(owned),
      name_(std::move(name)),
      start_(start),
      size_(size),
      mtime_ns_(mtime_ns) {}

RandomAccessInput::~RandomAccessInput() {
  if (owned_) fs::close_fd(fd_);
}

size_t RandomAccessInput::read_at(uint64_t offset, char* buf, size_t capacity) const {
  size_t done = 0;
  while (done < capacity) {
    const long n = fs::pread_some(fd_, buf + done, capacity - done, start_ + offset + done);
    if (n < 0) {
      throw Error("cannot read input " + name_ + " at byte offset " +
                      std::to_string(offset + done) + ": " + fs::error_text(errno) + ".",
                  ErrorKind::io);
    }
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  return done;
}

void RandomAccessInput::check_unchanged(uint64_t offset) const {
  fs::FileStatus status;
  if (const int err = fs::status_of(fd_, status)) {
    throw Error("cannot check input " + name_ + " for changes: " + fs::error_text(err) + ".",
                ErrorKind::io);
  }
  const uint64_t was = start_ + size_;
  if (status.size == was && status.mtime_ns == mtime_ns_) return;
  throw input_changed_error(name_, was, status.size,
                            "when read up to byte offset " + std::to_string(offset));
}

std::unique_ptr<ByteSource> RandomAccessInput::stream() const {
  return wrap_decoder(std::make_unique<PositionalSource>(*this, name_));
}

}  // namespace gdedup::io
