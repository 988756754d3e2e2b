#include "pipeline/file_ops.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace gdedup::pipeline::file_ops {
namespace {
// Linux moves at most about 2 GiB per call anyway.
constexpr uint64_t kChunk = uint64_t{64} << 20;
}  // namespace

Fd& Fd::operator=(Fd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

Fd::~Fd() {
  if (fd_ >= 0) ::close(fd_);
}

int Fd::close_now() {
  const int fd = fd_;
  fd_ = -1;
  return ::close(fd) == 0 ? 0 : errno;
}

int64_t read_at(int fd, void* buffer, uint64_t length, uint64_t offset) {
  auto* p = static_cast<char*>(buffer);
  uint64_t done = 0;
  while (done < length) {
    const ssize_t got = ::pread(fd, p + done, std::min(length - done, kChunk),
                                static_cast<off_t>(offset + done));
    if (got < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    if (got == 0) break;
    done += static_cast<uint64_t>(got);
  }
  return static_cast<int64_t>(done);
}

std::string containing_folder(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

int sync_folder(const std::string& path) {
  Fd dir(::open(containing_folder(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.get() < 0) return errno;
  if (::fsync(dir.get()) != 0 && errno != EINVAL && errno != ENOTSUP) return errno;
  return 0;
}

}  // namespace gdedup::pipeline::file_ops
