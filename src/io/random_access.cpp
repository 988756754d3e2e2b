#include "io/random_access.h"

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gdedup/error.h"
#include "io/sys.h"

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
  auto refuse = [&path](int err) {
    return Error("cannot open input " + path + ": " + sys::error_text(err) + ".");
  };
  if (path == "-") {
    struct stat st {};
    const off_t start = ::lseek(STDIN_FILENO, 0, SEEK_CUR);
    if (::fstat(STDIN_FILENO, &st) != 0 || !S_ISREG(st.st_mode) || start < 0) return nullptr;
    const auto size = static_cast<uint64_t>(st.st_size), first = static_cast<uint64_t>(start);
    return std::unique_ptr<RandomAccessInput>(new RandomAccessInput(
        STDIN_FILENO, false, "standard input", first, size > first ? size - first : 0));
  }
  // stat first: opening a named pipe would wait for a writer.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw refuse(errno);
  if (S_ISDIR(st.st_mode)) throw refuse(EISDIR);
  if (!S_ISREG(st.st_mode)) return nullptr;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw refuse(errno);
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    sys::close_fd(fd);
    throw refuse(err);
  }
  return std::unique_ptr<RandomAccessInput>(
      new RandomAccessInput(fd, true, path, 0, static_cast<uint64_t>(st.st_size)));
}

RandomAccessInput::RandomAccessInput(int fd, bool owned, std::string name, uint64_t start,
                                     uint64_t size)
    : fd_(fd), owned_(owned), name_(std::move(name)), start_(start), size_(size) {}

RandomAccessInput::~RandomAccessInput() {
  if (owned_) sys::close_fd(fd_);
}

size_t RandomAccessInput::read_at(uint64_t offset, char* buf, size_t capacity) const {
  size_t done = 0;
  while (done < capacity) {
    const long n = sys::pread_some(fd_, buf + done, capacity - done, start_ + offset + done);
    if (n < 0) {
      throw Error("cannot read input " + name_ + " at byte offset " +
                  std::to_string(offset + done) + ": " + sys::error_text(errno) + ".");
    }
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  return done;
}

std::unique_ptr<ByteSource> RandomAccessInput::stream() const {
  return wrap_decoder(std::make_unique<PositionalSource>(*this, name_));
}

}  // namespace gdedup::io
