// The files a job reads and writes, checked and locked before anything is
// read or created, so that a typo costs nothing and two jobs never write
// one file at once (docs/CLI.md, "Files a job writes"). run_job and
// run_merge_job make these checks themselves; a front end that writes files
// of its own (the Python module's save) makes them here.
#pragma once

#include <string>
#include <vector>

#include "gdedup/frontend/path_lock.h"

namespace gdedup {

class JobEvents;

// A file the job writes: `what` names it in messages ("output", "filter",
// "checkpoint", "statistics file"). `in_place` files may be written where
// they are (the output: a device or a pipe will do), though an existing one
// must then be writable itself; the others are replaced by rename
// (fs::Replacement), so they must be regular files or new.
struct WrittenFile {
  std::string path;
  const char* what;
  bool in_place;
  bool locked = true;  // held through PATH.lock for the job (not the statistics file)
};

// Every written file differs from every input (`read`: the inputs, and a
// filter that is only read) and from every other written file, whatever
// the spelling: ./a, symbolic links and hard links are seen through, and
// two names of files that do not exist yet are compared in their real
// folders. No written file may be another's lock file (PATH.lock), which
// the job deletes when it ends. Throws UsageError naming both files.
void check_written_files(const std::vector<WrittenFile>& written,
                         const std::vector<std::string>& read);

// Throws Error unless `file` can be written: not a folder, an existing
// file writable, a new one's folder present and writable (and the folder of
// a replaced one, which gets a temporary file beside it). A replaced file
// must be a regular file or new, not a device or a symbolic link: the
// rename would replace those themselves (/dev/null as a filter). Every file a job
// writes is checked so at the start, so that a typo costs nothing.
void check_writable(const WrittenFile& file);

bool file_exists(const std::string& path);
// True for standard output ("-") and for a name that is a device, a pipe or
// a symbolic link: written where it is rather than replaced by a new file,
// which would replace the device or the link itself (statistics to /dev/stdout).
bool writes_in_place(const std::string& path);

// The locks a job holds on the files it writes, from before it reads or
// creates anything until it exits: a second job on the same output or
// checkpoint is refused at once, naming the job that holds it; a second
// job on the same filter file waits for the first to finish (saying so
// through `events`) and then starts from the filter it saved, so that both
// jobs' keys end up in the file.
struct FileLocks {
  fs::PathLock output;
  fs::PathLock output_itself;  // an existing output, whatever name (hard link) it is given by
  fs::PathLock checkpoint;
  fs::PathLock filter;
};

// `output` is "" when the job writes none (or writes standard output),
// `checkpoint` and `filter` "" when not used; a filter that is only read
// (query) is not locked. Throws Error when a lock cannot be had.
FileLocks lock_job_files(const std::string& output, const std::string& checkpoint,
                         const std::string& filter, JobEvents& events);

}  // namespace gdedup
