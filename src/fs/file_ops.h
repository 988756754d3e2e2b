// The OS layer: every OS call the engine makes on files goes through here or
// the other files of src/fs (memory.h, and file_status.cpp and path_lock.cpp,
// which a front end calls too: gdedup/frontend/paths.h, gdedup/frontend/path_lock.h). They
// return an errno and leave the words to their callers, and depend on libc
// only, so core, format (filter files, checkpoints), io and pipeline all
// stand on them. Calls that create, write, sync, rename, remove or lock a
// file the engine writes are wrapped here for two more reasons:
//  - no path a job creates follows a link planted by someone else: temporary
//    files get unique names opened with O_EXCL | O_NOFOLLOW, lock files are
//    opened with O_NOFOLLOW, and an output follows a link only when the link
//    is trusted (trusted_link());
//  - tests can watch and break durability: an Observer sees each write,
//    fsync, rename and folder fsync in order, and can make any of them fail.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "gdedup/frontend/paths.h"

namespace gdedup::fs {

// kMap is anonymous memory (memory.h's map_zeroed), with no name and the
// bytes asked for: a test's way to run the engine out of memory.
enum class Op { kCreate, kWrite, kSync, kTruncate, kRename, kSyncFolder, kUnlink, kMap };

// A test's window on the calls above (process-wide). before() runs ahead of
// each call with the file's name (for kRename the target's, for kSyncFolder
// the folder's); returning an errno makes the call fail with it, undone. For
// kWrite it may also lower `bytes`: the write then stores that many bytes
// and fails with ENOSPC, as a disk that fills up mid-write does.
class Observer {
 public:
  virtual ~Observer() = default;
  virtual int before(Op op, const std::string& name, size_t& bytes) = 0;
};
// Installs `observer` (nullptr for none) and returns the previous one.
Observer* set_observer(Observer* observer);
// 0, or the errno the installed observer injects into the call `op`: for
// the calls of src/fs.
int observe(Op op, const std::string& name, size_t& bytes);

// write(2) of all `size` bytes, EINTR and partial writes handled; 0 or an
// errno (write(2) returning 0 counts as ENOSPC). Bytes stored before a
// failure go to *done when given. `name` is the file's, for the Observer.
int write_all(int fd, const std::string& name, const void* data, size_t size,
              size_t* done = nullptr);
// The same with pwrite(2) at `offset`; the file position does not move.
int pwrite_all(int fd, const std::string& name, const void* data, size_t size,
               uint64_t offset);

// fsync(2). Files that cannot be synced (pipes, terminals: EINVAL) count as
// done: there is nothing to make durable.
int sync(int fd, const std::string& name);
int truncate(int fd, const std::string& name, uint64_t size);

// An open file and its name, closed on scope exit. Methods return 0 or an
// errno; EINTR and partial transfers are handled.
class File {
 public:
  File() = default;
  File(int fd, std::string name) : fd_(fd), name_(std::move(name)) {}
  File(File&& other) noexcept;
  File& operator=(File&& other) noexcept;
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  ~File();

  int fd() const { return fd_; }
  bool is_open() const { return fd_ >= 0; }
  const std::string& name() const { return name_; }

  int write_all(const void* data, size_t size, size_t* done = nullptr) {
    return fs::write_all(fd_, name_, data, size, done);
  }
  int pwrite_all(const void* data, size_t size, uint64_t offset) {
    return fs::pwrite_all(fd_, name_, data, size, offset);
  }
  int sync() { return fs::sync(fd_, name_); }
  int truncate(uint64_t size) { return fs::truncate(fd_, name_, size); }
  // Hands the descriptor over: the caller closes it.
  int release() { return std::exchange(fd_, -1); }
  // Closes now: a failed close can be the first report of a failed write.
  int close_now();

 private:
  int fd_ = -1;
  std::string name_;
};

// Bytes read at `offset`: fewer than `length` only at end of file; -1 with
// errno set on failure.
int64_t read_at(int fd, void* buffer, uint64_t length, uint64_t offset);
// One read(2) of at most `capacity` bytes, retried on EINTR. Returns 0 at end
// of file; on failure returns -1 with errno set.
long read_some(int fd, char* buf, size_t capacity);
// The same with pread(2), at `offset`; the file position does not move.
long pread_some(int fd, char* buf, size_t capacity, uint64_t offset);
// Appends what is left to read at `fd`, up to its end, to `out`: 0 or an
// errno (what was read before a failure stays in `out`).
int read_to_end(int fd, std::string& out);

// The file position (lseek(fd, 0, SEEK_CUR)), or -1 with errno set (pipes).
int64_t position(int fd);
// Moves the file position to `offset`: 0 or an errno.
int seek(int fd, uint64_t offset);
// Tells the kernel the file is read strictly forward (a larger read-ahead).
void advise_sequential(int fd);

// close(2) that reports an error but is never retried: on Linux the
// descriptor is gone even when close fails with EINTR.
int close_fd(int fd);

// Opens `path` read-only, following links: reading through a link changes
// nothing. A path longer than PATH_MAX is opened one folder at a time
// (long_path.h). 0 or an errno.
int open_for_reading(const std::string& path, File& out);
// The same, but it never waits: a named pipe with no writer would block
// open(2) until one comes, so the file is opened with O_NONBLOCK and its
// type given in `status` (O_NONBLOCK is cleared for a regular file). For
// files that must be regular (a filter, a checkpoint): the caller refuses
// any other type. 0 or an errno.
int open_without_waiting(const std::string& path, File& out, FileStatus& status);
// The same, but a symbolic link at `path` is followed only when
// trusted_link() says so; otherwise ELOOP. For a file the job will write.
int open_for_reading_trusted(const std::string& path, File& out);

// A new, empty file beside `target`, named target.tmp.XXXXXX with a random
// suffix, created with O_EXCL | O_NOFOLLOW (so never through a link, never
// shared with another writer) and `mode` less the umask, open for reading
// and writing. 0 or an errno. The name is in the registry of live
// temporaries (live_temporaries.h) from before the file exists, in
// `live_slot`: the owner forgets it once the file is renamed or removed.
int create_temp_beside(const std::string& target, File& out, int& live_slot,
                       mode_t mode = 0644);
// The same at the name `name` itself (EEXIST when it is taken): for a
// temporary file whose name a checkpoint already holds.
int create_temp_named(const std::string& name, File& out, int& live_slot, mode_t mode = 0644);

// Opens a file the job created, or the run it continues created (an output's
// temporary file), for reading and writing, never through a symbolic link
// (ELOOP). 0 or an errno.
int open_own_file(const std::string& path, File& out);
// fchmod(2): sets the permission bits (07777) of an open file. 0 or an errno.
int set_permissions(int fd, uint32_t permissions);
// The user running the process (geteuid(2)).
uint32_t current_user();
// True when `path` itself is a symbolic link (lstat(2)).
bool is_symbolic_link(const std::string& path);

// Opens `path` for writing without truncating it, creating it if missing.
// A symbolic link at `path` is followed only when trusted_link() says so;
// otherwise ELOOP. 0 or an errno.
int open_for_writing(const std::string& path, File& out);

int rename_file(const std::string& from, const std::string& to);
// mkdir(2) with permissions 0777 (less the umask); a folder already there
// counts as made. 0 or an errno.
int make_folder(const std::string& path);

// This machine's name (gethostname(2)), or "unknown".
std::string host_name();

// fsync of the folder holding `path`, so that a rename in it is durable.
// File systems that cannot sync a folder (EINVAL, ENOTSUP) count as done.
int sync_folder(const std::string& path);

}  // namespace gdedup::fs
