// Every descriptor src/fs opens comes from here, and none of them is 0, 1 or
// 2. A process may run with a standard stream closed (started as `gdedup ...
// >&-`, or a program that closed one), and open(2) hands out the lowest free
// number: the engine's next file would become that stream, and the records
// meant for standard output would be written into a lock file, or a lock
// file read as standard input. A file opened at 0, 1 or 2 is moved to 3 or
// above (F_DUPFD_CLOEXEC) and the low number closed again, so that a use of
// the stream fails as it did before (EBADF).
//
// The move leaves a moment in which the file holds the low number: a program
// whose other threads use a closed stream while the engine opens files
// should hold the streams first, as the command does at its start
// (gdedup/frontend/standard_streams.h). All three calls are async-signal-safe.
#pragma once

#include <sys/types.h>

namespace gdedup::fs {

// open(2) of `path`: a descriptor of 3 or more, or -1 with errno set.
int open_descriptor(const char* path, int flags, mode_t mode = 0);
// openat(2) of `name` in the folder open at `folder`; the same.
int open_descriptor_at(int folder, const char* name, int flags, mode_t mode = 0);
// A second descriptor of the file open at `fd`, close-on-exec; the same.
int duplicate_descriptor(int fd);

}  // namespace gdedup::fs
