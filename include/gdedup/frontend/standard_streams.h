// A program's standard streams: descriptors 0, 1 and 2. Part of the OS layer
// (src/fs): calls return 0 or an errno and leave the words to the caller
// (error_text(), gdedup/frontend/paths.h).
//
// A process may be started with a standard stream closed (`gdedup ... >&-`,
// `<&-`). open(2) hands out the lowest free number, so the first file opened
// would become that stream: a lock file at 1 would receive the records meant
// for standard output, a lock file at 0 would be read as the input. The
// engine never keeps a file of its own at 0, 1 or 2 (src/fs moves it
// higher), but other libraries open files too (the CUDA driver, MPI), and
// the move leaves a moment in which another thread could use the stream. A
// program therefore calls hold_standard_streams() first of all, before
// anything can open a file or start a thread, as the gdedup command does.
#pragma once

#include <string>

namespace gdedup::fs {

// Holds the number of each closed standard stream with a descriptor that
// refuses every use as a closed one does: read(2) and write(2) fail with
// EBADF, and its names (/dev/stdin, /dev/stdout, /proc/self/fd/N) cannot be
// opened (ENXIO). Not /dev/null, whose reads are an empty input and whose
// writes vanish: `-o /dev/stdout` would then lose the records, exit 0. An
// open stream is left as it is. 0, or an errno when a number could not be
// held.
int hold_standard_streams();

// Writes all of `text` to standard output (EINTR and partial writes
// handled): 0 or an errno (EPIPE when its reader has gone).
int write_standard_output(const std::string& text);

// Closes standard output: a write the kernel takes but cannot store may be
// reported only here (a full or failing disk over NFS). The last thing a
// program does with it. 0 or an errno.
int close_standard_output();

}  // namespace gdedup::fs
