// Saving a filter or set file that a program keeps in memory between saves
// (Python's Filter and Set, or any program built on the library), as every
// gdedup writer of that file saves it: under PATH.lock (an flock held by
// every gdedup program that writes the file, docs/CLI.md "Files a job
// writes"), and never over a version of the file that the program did not read,
// which would lose the keys of whoever wrote that version. A job needs no
// guard: it holds the lock of its file from before it reads the file until
// it saves it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace gdedup {

// What a guarded save writes, for its refusals' words: "filter" and
// "filter file", or "set" and "set file".
enum class SavedKind { kFilter, kSet };

// What one filter or set kept in memory knows of its file: the version it
// last read or wrote. Its saves go through it, one call at a time, as the
// filter or set itself takes one at a time.
class SaveGuard {
 public:
  // `merge_advice`: how the program merges a file into the filter or set
  // before it saves again, in the program's own words, for the refusal of
  // a file that changed ("merge(Filter.load(path))"); "" says no more than
  // to merge that file in first.
  explicit SaveGuard(SavedKind kind, std::string merge_advice = "");

  // Notes the file at `path` as the program is about to read it. Called
  // before the load: a file replaced during the load then differs at the
  // next save, which is refused rather than replacing keys never read.
  void note_read(const std::string& path);

  // After the filter or set of `other` was merged into this one: where
  // both last saw a version of one path, this one now holds the keys of
  // the version `other` saw, so a save over that version loses none.
  void note_merged(const SaveGuard& other);

  // Runs `write` (a crash-safe write of `path`, which replaces the file by
  // rename: save_filter, save_filter_file, save_set_file) under PATH.lock.
  // Refused with Error, the file untouched:
  //  - (io) while another process holds the lock: a gdedup job, whose own
  //    save at its end would replace this one; the lock is not waited for,
  //    as the job may run for hours;
  //  - where a job could not write the file either (a folder, a symbolic
  //    link or a pipe, which the rename would replace, a folder that is
  //    missing or not writable);
  //  - (input_changed) when the version this guard last saw is of `path`
  //    and the file there changed since: another process saved it.
  // After it, the version written is the one this guard last saw, also
  // when `write` fails after its rename (the folder's fsync).
  void save(const std::string& path, const std::function<void()>& write);

 private:
  // What tells one version of a file from another: every gdedup writer
  // replaces the file by rename (a new inode), and a write in place changes
  // its size or modification time.
  struct Version {
    std::string path;  // absolute, as saves to it are matched
    uint64_t device = 0;
    uint64_t inode = 0;
    uint64_t size = 0;
    int64_t modified_ns = 0;

    bool operator==(const Version& o) const {
      return path == o.path && device == o.device && inode == o.inode && size == o.size &&
             modified_ns == o.modified_ns;
    }
    bool operator!=(const Version& o) const { return !(*this == o); }
  };
  // The file at `path` now, or nullopt when there is none (or it cannot be
  // examined: then there is nothing to compare).
  static std::optional<Version> version_of(const std::string& path);

  SavedKind kind_;
  std::string merge_advice_;
  std::optional<Version> last_seen_;  // the version last read or written
};

}  // namespace gdedup
