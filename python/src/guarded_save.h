// How a Python Filter or Set saves its file, as every gdedup writer of that
// file does: under PATH.lock (gdedup/frontend/path_lock.h), and never over a version
// of the file that it did not read, which would lose the keys of whoever
// wrote that version.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "file_stamp.h"

namespace gdedup::python {

// Which object saves, for the refusals' words: "filter", "Filter" and
// "filter file", or "set", "Set" and "set file".
struct SavedKind {
  const char* noun;
  const char* type;
  const char* file;
};

// Runs `write` (a crash-safe write of `path`) under PATH.lock. Refused with
// Error, the file untouched: while a gdedup job holds the lock (its own
// save at its end would replace this one); where a job could not write it
// either (check_writable: a folder, a symbolic link or a pipe, which the
// rename would replace, a folder that is missing or not writable); or when
// `last_seen` names this path and the file there changed since (another
// process saved it).
// `last_seen` is set to the file written, also when `write` fails after its
// rename (the folder's fsync).
void save_guarded(const std::string& path, const SavedKind& kind,
                  std::optional<FileStamp>& last_seen, const std::function<void()>& write);

}  // namespace gdedup::python
