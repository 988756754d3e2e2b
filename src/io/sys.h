// The POSIX calls the I/O layer makes, wrapped once: EINTR retries, partial
// transfers and errno turned into sentences. Everything OS-specific in src/io
// goes through here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace gdedup::io::sys {

// strerror(err) without the thread-safety trap of strerror().
std::string error_text(int err);

// One read(2) of at most `capacity` bytes, retried on EINTR. Returns 0 at end
// of file; on failure returns -1 with errno set.
long read_some(int fd, char* buf, size_t capacity);
// The same with pread(2), at `offset`; the file position does not move.
long pread_some(int fd, char* buf, size_t capacity, uint64_t offset);

// Writes all `size` bytes, retrying on EINTR and partial writes. Returns 0 or
// the errno of the failing write(2) (write returning 0 counts as ENOSPC).
int write_all(int fd, const void* data, size_t size);
// The same with pwrite(2), at `offset`; the file position does not move.
int pwrite_all(int fd, const void* data, size_t size, uint64_t offset);

// close(2) that reports an error but is never retried: on Linux the
// descriptor is gone even when close fails with EINTR.
int close_fd(int fd);

}  // namespace gdedup::io::sys
