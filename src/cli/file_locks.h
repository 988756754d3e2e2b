// The locks a job holds on the files it writes, from before it reads or
// creates anything until it exits (docs/CLI.md, "Files a job writes"):
// a second job on the same output or checkpoint is refused at once, naming
// the job that holds it; a second job on the same filter file waits for the
// first to finish and then starts from the filter it saved, so that both
// jobs' keys end up in the file.
#pragma once

#include <string>

#include "gdedup/path_lock.h"

namespace gdedup::cli {

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
                         const std::string& filter);

}  // namespace gdedup::cli
