// The registry of live temporary files (gdedup/frontend/live_temporaries.h): a fixed
// table of slots set with atomics, so that the removal is async-signal-safe.
#pragma once

#include <string>

#include "gdedup/frontend/live_temporaries.h"

namespace gdedup::fs {

// Registers `path`, a file this process creates with O_EXCL and alone
// owns; returns its slot, or -1 when the table is full or the path too long
// (that file is then only removed by its owner).
int register_temporary(const std::string& path);
// Registers the lock file `path` before it is opened, as above. Other
// processes open the same name, so the removal takes the file only while
// this process could take its lock (flock(2)): through the descriptor given
// to lock_file_opened() once it is open, and through one of its own before.
// Without that descriptor it could not tell its own lock from another's,
// nor a file renamed over the name (gdedup merge -o A.lock) from the lock.
int register_lock_file(const std::string& path);
// The lock file of `slot` is open at `fd`, or closed again (-1); called
// before the lock is taken on `fd` and before `fd` is closed.
void lock_file_opened(int slot, int fd);
// The file was renamed or removed by its owner: forget it. -1 is ignored.
void forget_temporary(int slot);

// What PathLock and the removal above both ask of a lock file, with system
// calls alone (async-signal-safe). Whether `fd` is still the file at `name`:
// a holder that finished may have removed it between another's open and
// flock, or a file may have been renamed over it.
bool still_linked(int fd, const char* name);
// Whether `fd` is an empty regular file. Lock files are never written, so
// one with contents, or a pipe or device at that name, is another file that
// happens to be called PATH.lock (an input, say), not to be removed.
bool empty_regular_file(int fd);

}  // namespace gdedup::fs
