// The temporary files this process has created and not yet renamed or
// removed, so that a signal that ends the process at once
// (src/cli/interrupt.cpp) removes them too: a job stopped while it saves
// leaves no PATH.tmp.XXXXXX behind. The registry is a fixed table of slots
// set with atomics, so that the removal is async-signal-safe.
#pragma once

#include <string>

namespace gdedup::fs {

// Registers `path`; returns its slot, or -1 when the table is full or the
// path too long (that file is then only removed by its owner).
int register_temporary(const std::string& path);
// The file was renamed or removed by its owner: forget it. -1 is ignored.
void forget_temporary(int slot);
// Removes every registered file with unlink(2). Async-signal-safe.
void remove_live_temporaries();

}  // namespace gdedup::fs
