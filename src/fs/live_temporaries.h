// The registry of live temporary files (gdedup/live_temporaries.h): a fixed
// table of slots set with atomics, so that the removal is async-signal-safe.
#pragma once

#include <string>

#include "gdedup/live_temporaries.h"

namespace gdedup::fs {

// Registers `path`; returns its slot, or -1 when the table is full or the
// path too long (that file is then only removed by its owner). With `fd`,
// the file open there: removed only while `path` still leads to it (a lock
// file's name, which other processes open too, may come to name another
// file: one renamed over it).
int register_temporary(const std::string& path, int fd = -1);
// The file was renamed or removed by its owner: forget it. -1 is ignored.
void forget_temporary(int slot);

}  // namespace gdedup::fs
