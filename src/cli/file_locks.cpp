#include "cli/file_locks.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>

#include "cli/console.h"
#include "fs/file_ops.h"
#include "gdedup/error.h"

namespace gdedup::cli {
namespace {

std::string holder_text(pid_t holder) {
  return holder > 0 ? "another gdedup job (pid " + std::to_string(holder) + ")"
                    : "another gdedup job";
}

[[noreturn]] void cannot_lock(const std::string& what, const std::string& path, int err) {
  const std::string lock = fs::lock_file_for(path);
  if (err == ELOOP) {
    throw Error("cannot lock " + what + " " + path + ": its lock file " + lock +
                " is a symbolic link, which gdedup never follows; remove it if no gdedup "
                "job is running.");
  }
  if (err == EEXIST) {
    throw Error("cannot lock " + what + " " + path + ": the name of its lock file " + lock +
                " is taken by a file that is not a gdedup lock file (those are empty), and "
                "the job would delete it when it ends; rename that file, or choose another "
                "name for the " + what + ".");
  }
  throw Error("cannot lock " + what + " " + path + " through the lock file " + lock + ": " +
              fs::error_text(err) + ".");
}

// Only files that a second job could interleave with are locked: not
// devices, pipes or terminals (/dev/null, a FIFO), which are not files
// whose contents could be damaged.
bool lockable(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode);
}

// The name whose lock guards `path`: an output written in place through a
// symbolic link is the file the link leads to, so that a second job naming
// that file, or another link to it, finds the same lock file. A link to a
// file not created yet leads to the name the job will create.
std::string locked_name(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return path;
  char real[PATH_MAX];
  if (::realpath(path.c_str(), real) != nullptr) return real;
  const ssize_t n = ::readlink(path.c_str(), real, sizeof real - 1);
  if (n <= 0) return path;
  const std::string target(real, static_cast<size_t>(n));
  const std::string full =
      target[0] == '/' ? target : fs::containing_folder(path) + "/" + target;
  const size_t slash = full.find_last_of('/');
  if (::realpath(fs::containing_folder(full).c_str(), real) == nullptr) return path;
  return std::string(real) + full.substr(slash);
}

fs::PathLock refuse_if_held(const std::string& what, const std::string& path) {
  fs::PathLock lock;
  if (path.empty() || !lockable(path)) return lock;
  const std::string name = locked_name(path);
  pid_t holder = 0;
  const int err = lock.acquire(name, false, &holder);
  if (err == EWOULDBLOCK) {
    throw Error(what + " " + path + " is in use by " + holder_text(holder) +
                ", which holds its lock file " + fs::lock_file_for(name) + "; two jobs writing one " + what +
                " would interleave, so this one stopped before doing anything. Wait for "
                "that job to finish, or choose another " + what + ".");
  }
  if (err != 0) cannot_lock(what, name, err);
  return lock;
}

fs::PathLock wait_for(const std::string& what, const std::string& path) {
  fs::PathLock lock;
  if (path.empty()) return lock;
  pid_t holder = 0;
  int err = lock.acquire(path, false, &holder);
  if (err == EWOULDBLOCK) {
    Console::get().info(what + " " + path + " is in use by " + holder_text(holder) +
                        "; waiting for it to finish");
    err = lock.acquire(path, true);
  }
  if (err != 0) cannot_lock(what, path, err);
  return lock;
}

}  // namespace

FileLocks lock_job_files(const std::string& output, const std::string& checkpoint,
                         const std::string& filter) {
  // Refusals first: a job that would be refused must not first sit waiting
  // for the filter, holding nothing useful.
  FileLocks locks;
  locks.output = refuse_if_held("output", output);
  if (locks.output.held()) {
    pid_t holder = 0;
    if (fs::lock_file_itself(output, locks.output_itself, &holder) == EWOULDBLOCK) {
      throw Error("output " + output + " is in use by " + holder_text(holder) +
                  ", which writes it under another name (a hard link); two jobs writing one "
                  "output would interleave, so this one stopped before doing anything. Wait "
                  "for that job to finish, or choose another output.");
    }
  }
  locks.checkpoint = refuse_if_held("checkpoint", checkpoint);
  locks.filter = wait_for("filter", filter);
  return locks;
}

}  // namespace gdedup::cli
