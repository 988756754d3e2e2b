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
    // Standard input redirected from a file is read from where it stands.
    const off_t at = ::lseek(fd_, 0, SEEK_CUR);
    start_ = at > 0 ? static_cast<uint64_t>(at) : 0;
    const auto size = static_cast<uint64_t>(st.st_size);
    size_ = size > start_ ? size - start_ : 0;
    mtime_ = st.st_mtim;
    // Doubles the kernel's read-ahead window: our reads are strictly forward.
    ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
  }
}

void FdSource::check_unchanged() const {
  struct stat st {};
  if (!size_ || ::fstat(fd_, &st) != 0) return;
  const auto now = static_cast<uint64_t>(st.st_size);
  const uint64_t was = start_ + *size_;
  if (now == was && start_ + bytes_read_ == now && st.st_mtim.tv_sec == mtime_.tv_sec &&
      st.st_mtim.tv_nsec == mtime_.tv_nsec) {
    return;
  }
  const std::string what = now == was ? "was modified while it was being read (same size, " +
                                            std::to_string(now) + " bytes, but written to)"
                                      : "changed size while it was being read: " +
                                            std::to_string(was) + " bytes when opened, " +
                                            std::to_string(now) + " at the end";
  throw Error("input " + name_ + " " + what + ", after " + std::to_string(bytes_read_) +
              " bytes were read; the output may lack records of it or hold some of another "
              "version of it. Run the job again once nothing writes to the file.");
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
  // the input, so the "stays 0" promise holds. A regular file must end as
  // it was opened: one truncated, grown or rewritten meanwhile would give an
  // output of neither version.
  if (n == 0) {
    check_unchanged();
    at_end_ = true;
  }
  bytes_read_ += static_cast<uint64_t>(n);
  return static_cast<size_t>(n);
}

}  // namespace gdedup::io
