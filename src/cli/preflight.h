// Checks made before any output is created, so that a typo costs nothing:
// every input readable, every file the job writes writable and distinct
// from the inputs and from each other.
#pragma once

#include <string>
#include <vector>

namespace gdedup::cli {

// Throws Error (exit 1), worded as opening the input would, for the first
// input that cannot be read; UsageError when standard input is named twice.
void check_inputs(const std::vector<std::string>& inputs);

// A file the job writes: `what` names it in messages ("output", "filter",
// "checkpoint", "statistics file"). `in_place` files may be written where
// they are (the output: a device or a pipe will do), though an existing one
// must then be writable itself; the others are replaced by rename
// (fs::Replacement), so they must be regular files or new.
struct WrittenFile {
  std::string path;
  const char* what;
  bool in_place;
  bool locked = true;  // held through PATH.lock for the job (not --stats)
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
// which would replace the device or the link itself (--stats /dev/stdout).
bool writes_in_place(const std::string& path);

}  // namespace gdedup::cli
