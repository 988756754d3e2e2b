#include "gdedup/frontend/job_files.h"

#include <cerrno>

#include "gdedup/error.h"
#include "gdedup/frontend/path_lock.h"
#include "gdedup/frontend/path_text.h"
#include "gdedup/frontend/paths.h"
#include "gdedup/job.h"

namespace gdedup {
namespace {

std::string holder_text(pid_t holder) {
  return holder > 0 ? "another gdedup job (pid " + std::to_string(holder) + ")"
                    : "another gdedup job";
}

[[noreturn]] void cannot_lock(const std::string& what, const std::string& path, int err) {
  const std::string shown = fs::printable(path), lock = fs::printable(fs::lock_file_for(path));
  if (err == ELOOP) {
    throw Error("cannot lock " + what + " " + shown + ": its lock file " + lock +
                " is a symbolic link, which gdedup never follows; remove it if no gdedup "
                "job is running.");
  }
  if (err == EEXIST) {
    throw Error("cannot lock " + what + " " + shown + ": the name of its lock file " + lock +
                " is taken by a file that is not a gdedup lock file (those are empty), and "
                "the job would delete it when it ends; rename that file, or choose another "
                "name for the " + what + ".");
  }
  throw Error("cannot lock " + what + " " + shown + " through the lock file " + lock + ": " +
              fs::error_text(err) + ".");
}

fs::PathLock refuse_if_held(const std::string& what, const std::string& path) {
  fs::PathLock lock;
  if (path.empty() || !fs::lockable(path)) return lock;
  const std::string name = fs::locked_name(path);
  pid_t holder = 0;
  const int err = lock.acquire(name, false, &holder);
  if (err == EWOULDBLOCK) {
    throw Error(what + " " + fs::printable(path) + " is in use by " + holder_text(holder) +
                ", which holds its lock file " + fs::printable(fs::lock_file_for(name)) +
                "; two jobs writing one " + what + " would interleave, so this one stopped "
                "before doing anything. Wait for that job to finish, or choose another " +
                what + ".");
  }
  if (err != 0) cannot_lock(what, name, err);
  return lock;
}

fs::PathLock wait_for(const std::string& what, const std::string& path, JobEvents& events) {
  fs::PathLock lock;
  if (path.empty()) return lock;
  pid_t holder = 0;
  int err = lock.acquire(path, false, &holder);
  if (err == EWOULDBLOCK) {
    events.info(what + " " + fs::printable(path) + " is in use by " + holder_text(holder) +
                "; waiting for it to finish");
    err = lock.acquire(path, true);
  }
  if (err != 0) cannot_lock(what, path, err);
  return lock;
}

}  // namespace

FileLocks lock_job_files(const std::string& output, const std::string& checkpoint,
                         const std::string& filter, JobEvents& events) {
  // Refusals first: a job that would be refused must not first sit waiting
  // for the filter, holding nothing useful.
  FileLocks locks;
  locks.output = refuse_if_held("output", output);
  if (locks.output.held()) {
    pid_t holder = 0;
    if (locks.output_itself.lock_itself(output, &holder) == EWOULDBLOCK) {
      throw Error("output " + fs::printable(output) + " is in use by " + holder_text(holder) +
                  ", which writes it under another name (a hard link); two jobs writing one "
                  "output would interleave, so this one stopped before doing anything. Wait "
                  "for that job to finish, or choose another output.");
    }
  }
  locks.checkpoint = refuse_if_held("checkpoint", checkpoint);
  locks.filter = wait_for("filter", filter, events);
  return locks;
}

}  // namespace gdedup
