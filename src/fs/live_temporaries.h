// The registry of live temporary files (gdedup/live_temporaries.h): a fixed
// table of slots set with atomics, so that the removal is async-signal-safe.
#pragma once

#include <string>

#include "gdedup/live_temporaries.h"

namespace gdedup::fs {

// Registers `path`; returns its slot, or -1 when the table is full or the
// path too long (that file is then only removed by its owner).
int register_temporary(const std::string& path);
// The file was renamed or removed by its owner: forget it. -1 is ignored.
void forget_temporary(int slot);

}  // namespace gdedup::fs
