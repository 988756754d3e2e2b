// The temporary files this process has created and not yet renamed or
// removed (a filter, a checkpoint or an output being saved, each beside the
// file it replaces), and the lock files it holds (gdedup/frontend/path_lock.h). A
// signal handler that ends the process at once calls
// remove_live_temporaries() first, so that a job stopped while it saves
// leaves no PATH.tmp.XXXXXX and no PATH.lock behind; the gdedup command does
// so in src/cli/interrupt.cpp. The engine registers and forgets the files
// itself.
#pragma once

namespace gdedup::fs {

// Removes every registered file with unlink(2); a lock file only while
// this process holds its lock or could take it. Async-signal-safe.
void remove_live_temporaries();

}  // namespace gdedup::fs
