// The POSIX file calls checkpoints make, with EINTR and partial transfers
// handled and failures turned into errno values for the caller to word.
#pragma once

#include <cstdint>
#include <string>

namespace gdedup::pipeline::file_ops {

// Closes on scope exit, so every early throw releases the descriptor.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  Fd(Fd&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  Fd& operator=(Fd&& other) noexcept;
  ~Fd();
  int get() const { return fd_; }
  // Closes now; returns close()'s errno or 0. A failed close can be the
  // first report of a failed write on some file systems.
  int close_now();

 private:
  int fd_;
};

// Bytes read: fewer than `length` only at end of file; -1 with errno set.
int64_t read_at(int fd, void* buffer, uint64_t length, uint64_t offset);

std::string containing_folder(const std::string& path);
// fsync of the folder holding `path`, so that a rename in it is durable.
// File systems that cannot sync a folder (EINVAL, ENOTSUP) count as done.
int sync_folder(const std::string& path);

}  // namespace gdedup::pipeline::file_ops
