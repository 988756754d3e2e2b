#include "guarded_save.h"

#include <cerrno>
#include <sys/types.h>

#include "gdedup/error.h"
#include "gdedup/frontend/job_files.h"
#include "gdedup/frontend/path_lock.h"
#include "gdedup/frontend/paths.h"

namespace gdedup::python {

void save_guarded(const std::string& path, const SavedKind& kind,
                  std::optional<FileStamp>& last_seen, const std::function<void()>& write) {
  const std::string noun = kind.noun;
  check_writable(WrittenFile{path, kind.file, false});
  // Refused at once, not waited for: the job may run for hours.
  fs::PathLock lock;
  pid_t holder = 0;
  if (const int err = lock.acquire(path, false, &holder); err == EWOULDBLOCK) {
    throw Error("the " + noun + " " + path + " is in use by process " + std::to_string(holder) +
                    " (a gdedup job, which saves it when it ends), so it was not saved: one "
                    "save would replace the other's keys; save when that job is done, or to "
                    "another path",
                ErrorKind::io);
  } else if (err != 0) {
    throw Error("cannot lock " + fs::lock_file_for(path) + " to save the " + noun + " " + path +
                    ": " + fs::error_text(err),
                ErrorKind::io);
  }
  // Under the lock, which every save takes: no other can come between.
  const std::optional<FileStamp> before = file_stamp(path);
  if (last_seen && before && last_seen->path == before->path && *before != *last_seen) {
    throw Error("the " + noun + " file " + path + " changed since this " + noun +
                    " last read or wrote it (another process saved it, or a gdedup job wrote "
                    "it), so it was not saved: this save would replace the keys added there "
                    "with this " + noun + "'s. Merge that file in first (merge(" + kind.type +
                    ".load(path))), then save; or save to another path",
                ErrorKind::input_changed);
  }
  try {
    write();
  } catch (...) {
    // Still under the lock: a file there that changed is the one written.
    if (std::optional<FileStamp> now = file_stamp(path); now != before) last_seen = std::move(now);
    throw;
  }
  last_seen = file_stamp(path);
}

}  // namespace gdedup::python
