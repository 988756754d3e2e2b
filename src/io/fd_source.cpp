#include "io/fd_source.h"

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gdedup/error.h"
#include "io/sys.h"

namespace gdedup::io {

std::unique_ptr<FdSource> FdSource::open(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    throw Error("cannot open input " + path + ": " + sys::error_text(errno) + ".");
  }
  // Opening a directory succeeds on Linux; say so now rather than at the
  // first read, with the same wording as a failed open.
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    sys::close_fd(fd);
    throw Error("cannot open input " + path + ": " + sys::error_text(EISDIR) + ".");
  }
  return std::make_unique<FdSource>(fd, path, true);
}

std::unique_ptr<FdSource> FdSource::standard_input() {
  return std::make_unique<FdSource>(0, "standard input", false);
}

FdSource::FdSource(int fd, std::string name, bool owned)
    : fd_(fd), owned_(owned), name_(std::move(name)) {
  struct stat st {};
  if (::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode)) {
    size_ = static_cast<uint64_t>(st.st_size);
    // Doubles the kernel's read-ahead window: our reads are strictly forward.
    ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
  }
}

FdSource::~FdSource() {
  if (owned_) sys::close_fd(fd_);
}

size_t FdSource::read(char* buf, size_t capacity) {
  if (at_end_) return 0;
  long n = sys::read_some(fd_, buf, capacity);
  if (n < 0) {
    throw Error("cannot read input " + name_ + " at byte offset " +
                std::to_string(bytes_read_) + ": " + sys::error_text(errno) + ".");
  }
  // A terminal gives 0 at Ctrl-D and data again afterwards: the first 0 ends
  // the input, so the "stays 0" promise holds.
  if (n == 0) at_end_ = true;
  bytes_read_ += static_cast<uint64_t>(n);
  return static_cast<size_t>(n);
}

}  // namespace gdedup::io
