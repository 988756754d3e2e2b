#include "fs/file_ops.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <system_error>
#include <utility>

#include "fs/descriptors.h"
#include "fs/live_temporaries.h"
#include "fs/long_path.h"
#include "fs/process.h"

namespace gdedup::fs {
namespace {

// Linux moves at most about 2 GiB per call anyway.
constexpr uint64_t kChunk = uint64_t{64} << 20;
// Random names collide once in 36^6 = 2e9; a hundred tries are only ever
// exhausted by a folder that refuses every name.
constexpr int kTempTries = 100;

std::atomic<Observer*> g_observer{nullptr};

int observe(Op op, const std::string& name) {
  size_t none = 0;
  return observe(op, name, none);
}

template <class Put>
int transfer_all(const std::string& name, size_t size, size_t* done_out, Put put) {
  size_t done = 0;
  int err = 0;
  while (done < size) {
    size_t want = std::min<uint64_t>(size - done, kChunk);
    const size_t asked = want;
    if ((err = observe(Op::kWrite, name, want)) != 0) break;
    const ssize_t n = put(done, want);
    if (n < 0) {
      if (errno == EINTR) continue;
      err = errno;
      break;
    }
    done += static_cast<size_t>(n);
    if (n == 0 || want < asked) {  // a full disk, real or injected
      err = ENOSPC;
      break;
    }
  }
  if (done_out != nullptr) *done_out = done;
  return err;
}

std::string random_suffix() {
  static const char kAlphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  static std::atomic<uint64_t> counter{0};
  uint64_t bits = 0;
  if (getrandom(&bits, sizeof bits, GRND_NONBLOCK) != sizeof bits) {
    // Unpredictable enough is not needed for safety (O_EXCL is): only
    // distinct names, which the pid, a counter and the clock give.
    bits = static_cast<uint64_t>(process_id()) * 0x9E3779B97F4A7C15ull ^
           counter.fetch_add(1) ^ static_cast<uint64_t>(::time(nullptr));
  }
  std::string s(6, 'a');
  for (char& c : s) {
    c = kAlphabet[bits % 36];
    bits /= 36;
  }
  return s;
}

}  // namespace

Observer* set_observer(Observer* observer) { return g_observer.exchange(observer); }

int observe(Op op, const std::string& name, size_t& bytes) {
  Observer* o = g_observer.load(std::memory_order_acquire);
  return o == nullptr ? 0 : o->before(op, name, bytes);
}

std::string error_text(int err) {
  char buf[256];
  // GNU strerror_r returns the message, which may or may not live in buf.
#if defined(__GLIBC__) && defined(_GNU_SOURCE)
  return strerror_r(err, buf, sizeof buf);
#else
  if (strerror_r(err, buf, sizeof buf) != 0) return "error " + std::to_string(err);
  return buf;
#endif
}

File::File(File&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), name_(std::move(other.name_)) {}

File& File::operator=(File&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    name_ = std::move(other.name_);
  }
  return *this;
}

File::~File() {
  if (fd_ >= 0) ::close(fd_);
}

int write_all(int fd, const std::string& name, const void* data, size_t size, size_t* done) {
  const auto* p = static_cast<const char*>(data);
  return transfer_all(name, size, done,
                      [&](size_t at, size_t n) { return ::write(fd, p + at, n); });
}

int pwrite_all(int fd, const std::string& name, const void* data, size_t size,
               uint64_t offset) {
  const auto* p = static_cast<const char*>(data);
  return transfer_all(name, size, nullptr, [&](size_t at, size_t n) {
    return ::pwrite(fd, p + at, n, static_cast<off_t>(offset + at));
  });
}

int sync(int fd, const std::string& name) {
  if (const int err = observe(Op::kSync, name)) return err;
  if (::fsync(fd) != 0 && errno != EINVAL) return errno;
  return 0;
}

int truncate(int fd, const std::string& name, uint64_t size) {
  if (const int err = observe(Op::kTruncate, name)) return err;
  return ::ftruncate(fd, static_cast<off_t>(size)) == 0 ? 0 : errno;
}

int File::close_now() { return close_fd(std::exchange(fd_, -1)); }

int close_fd(int fd) {
  if (::close(fd) == 0 || errno == EINTR) return 0;
  return errno;
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

long read_some(int fd, char* buf, size_t capacity) {
  for (;;) {
    const ssize_t n = ::read(fd, buf, capacity);
    if (n >= 0 || errno != EINTR) return static_cast<long>(n);
  }
}

long pread_some(int fd, char* buf, size_t capacity, uint64_t offset) {
  for (;;) {
    const ssize_t n = ::pread(fd, buf, capacity, static_cast<off_t>(offset));
    if (n >= 0 || errno != EINTR) return static_cast<long>(n);
  }
}

int read_to_end(int fd, std::string& out) {
  char buf[64 << 10];
  for (;;) {
    const long n = read_some(fd, buf, sizeof buf);
    if (n < 0) return errno;
    if (n == 0) return 0;
    out.append(buf, static_cast<size_t>(n));
  }
}

int64_t position(int fd) { return static_cast<int64_t>(::lseek(fd, 0, SEEK_CUR)); }

int seek(int fd, uint64_t offset) {
  return ::lseek(fd, static_cast<off_t>(offset), SEEK_SET) < 0 ? errno : 0;
}

void advise_sequential(int fd) { ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL); }

int open_for_reading(const std::string& path, File& out) {
  const int fd = open_any_length(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  out = File(fd, path);
  return 0;
}

int open_without_waiting(const std::string& path, File& out, FileStatus& status) {
  File file(open_any_length(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), path);
  if (!file.is_open()) return errno;
  if (const int err = status_of(file.fd(), status)) return err;
  // Reads of a regular file never wait anyway; clearing the flag keeps
  // them plain.
  if (status.regular() &&
      ::fcntl(file.fd(), F_SETFL, ::fcntl(file.fd(), F_GETFL) & ~O_NONBLOCK) != 0) {
    return errno;
  }
  out = std::move(file);
  return 0;
}

int open_for_reading_trusted(const std::string& path, File& out) {
  int fd = open_descriptor(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 && errno == ELOOP && trusted_link(path)) {
    fd = open_descriptor(path.c_str(), O_RDONLY | O_CLOEXEC);
  }
  if (fd < 0) return errno;
  out = File(fd, path);
  return 0;
}

int create_temp_beside(const std::string& target, File& out, int& live_slot, mode_t mode) {
  int err = EEXIST;
  for (int i = 0; i < kTempTries && err == EEXIST; ++i) {
    err = create_temp_named(target + ".tmp." + random_suffix(), out, live_slot, mode);
  }
  return err;
}

int create_temp_named(const std::string& name, File& out, int& live_slot, mode_t mode) {
  if (const int err = observe(Op::kCreate, name)) return err;
  // Registered before it exists: a signal between the open and a later
  // registration would leave the file behind.
  const int slot = register_temporary(name);
  const int fd =
      open_descriptor(name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) {
    const int err = errno;
    forget_temporary(slot);
    return err;
  }
  out = File(fd, name);
  live_slot = slot;
  return 0;
}

bool trusted_link(const std::string& path) {
  struct stat link {}, folder {};
  if (::lstat(path.c_str(), &link) != 0 || !S_ISLNK(link.st_mode)) return false;
  if (link.st_uid == ::geteuid()) return true;
  return ::stat(containing_folder(path).c_str(), &folder) == 0 && folder.st_uid == link.st_uid;
}

int open_own_file(const std::string& path, File& out) {
  const int fd = open_descriptor(path.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return errno;
  out = File(fd, path);
  return 0;
}

int set_permissions(int fd, uint32_t permissions) {
  return ::fchmod(fd, static_cast<mode_t>(permissions & 07777)) == 0 ? 0 : errno;
}

uint32_t current_user() { return static_cast<uint32_t>(::geteuid()); }

bool is_symbolic_link(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
}

std::string real_path(const std::string& path) {
  char* real = ::realpath(path.c_str(), nullptr);
  if (real == nullptr) return "";
  std::string out(real);
  std::free(real);
  return out;
}

std::string absolute_path(const std::string& path) {
  std::error_code error;
  const std::filesystem::path absolute = std::filesystem::absolute(path, error);
  return error ? path : absolute.lexically_normal().string();
}

int open_for_writing(const std::string& path, File& out) {
  if (const int err = observe(Op::kCreate, path)) return err;
  constexpr int kFlags = O_WRONLY | O_CREAT | O_CLOEXEC;
  int fd = open_descriptor(path.c_str(), kFlags | O_NOFOLLOW, 0666);
  if (fd < 0 && errno == ELOOP && trusted_link(path)) {
    fd = open_descriptor(path.c_str(), kFlags, 0666);
  }
  if (fd < 0) return errno;
  out = File(fd, path);
  return 0;
}

int rename_file(const std::string& from, const std::string& to) {
  if (const int err = observe(Op::kRename, to)) return err;
  return ::rename(from.c_str(), to.c_str()) == 0 ? 0 : errno;
}

int unlink_file(const std::string& path) {
  if (const int err = observe(Op::kUnlink, path)) return err;
  return ::unlink(path.c_str()) == 0 ? 0 : errno;
}

int make_folder(const std::string& path) {
  return ::mkdir(path.c_str(), 0777) == 0 || errno == EEXIST ? 0 : errno;
}

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "unknown";
  return name;
}

std::string containing_folder(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

int sync_folder(const std::string& path) {
  const std::string folder = containing_folder(path);
  if (const int err = observe(Op::kSyncFolder, folder)) return err;
  File dir(open_descriptor(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC), folder);
  if (!dir.is_open()) return errno;
  if (::fsync(dir.fd()) != 0 && errno != EINVAL && errno != ENOTSUP) return errno;
  return 0;
}

}  // namespace gdedup::fs
