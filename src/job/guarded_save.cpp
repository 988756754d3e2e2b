#include "gdedup/guarded_save.h"

#include <sys/types.h>

#include <cerrno>
#include <utility>

#include "gdedup/error.h"
#include "gdedup/frontend/job_files.h"
#include "gdedup/frontend/path_lock.h"
#include "gdedup/frontend/path_text.h"
#include "gdedup/frontend/paths.h"

namespace gdedup {
namespace {

struct KindWords {
  const char* noun;
  const char* file;
};

KindWords words(SavedKind kind) {
  return kind == SavedKind::kFilter ? KindWords{"filter", "filter file"}
                                    : KindWords{"set", "set file"};
}

}  // namespace

std::optional<SaveGuard::Version> SaveGuard::version_of(const std::string& path) {
  fs::FileStatus status;
  if (fs::status_of_path(path, status) != 0) return std::nullopt;
  Version version;
  version.path = fs::absolute_path(path);
  version.device = status.device;
  version.inode = status.inode;
  version.size = status.size;
  version.modified_ns = status.mtime_ns;
  return version;
}

SaveGuard::SaveGuard(SavedKind kind, std::string merge_advice)
    : kind_(kind), merge_advice_(std::move(merge_advice)) {}

void SaveGuard::note_read(const std::string& path) { last_seen_ = version_of(path); }

void SaveGuard::note_merged(const SaveGuard& other) {
  if (last_seen_ && other.last_seen_ && other.last_seen_->path == last_seen_->path) {
    last_seen_ = other.last_seen_;
  }
}

void SaveGuard::save(const std::string& path, const std::function<void()>& write) {
  const KindWords kind = words(kind_);
  const std::string noun = kind.noun, shown = fs::printable(path);
  check_writable(WrittenFile{path, kind.file, false});
  fs::PathLock lock;
  pid_t holder = 0;
  if (const int err = lock.acquire(path, false, &holder); err == EWOULDBLOCK) {
    // The holder is unknown (0) where /proc/locks cannot be read.
    const std::string who = holder > 0 ? "process " + std::to_string(holder) : "another process";
    throw Error("the " + noun + " " + shown + " is in use by " + who +
                    " (a gdedup job, which saves it when it ends), so it was not saved: one "
                    "save would replace the other's keys; save when that job is done, or to "
                    "another path",
                ErrorKind::io);
  } else if (err != 0) {
    throw Error("cannot lock " + fs::printable(fs::lock_file_for(path)) + " to save the " + noun +
                    " " + shown + ": " + fs::error_text(err),
                ErrorKind::io);
  }
  // Under the lock, which every save takes: no other can come between.
  const std::optional<Version> before = version_of(path);
  if (last_seen_ && before && last_seen_->path == before->path && *before != *last_seen_) {
    const std::string advice = merge_advice_.empty() ? "" : " (" + merge_advice_ + ")";
    throw Error("the " + noun + " file " + shown + " changed since this " + noun +
                    " last read or wrote it (another process saved it, or a gdedup job wrote "
                    "it), so it was not saved: this save would replace the keys added there "
                    "with this " + noun + "'s. Merge that file in first" + advice +
                    ", then save; or save to another path",
                ErrorKind::input_changed);
  }
  try {
    write();
  } catch (...) {
    // Still under the lock: a file there that changed is the one written.
    if (std::optional<Version> now = version_of(path); now != before) {
      last_seen_ = std::move(now);
    }
    throw;
  }
  last_seen_ = version_of(path);
}

}  // namespace gdedup
