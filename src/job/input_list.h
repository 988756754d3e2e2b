// The inputs of a job as its spec names them (JobInputs): paths, the
// paths listed in a file, folders opened recursively and missing files
// dropped, resolved once, before any work,
// into the list of files the pipeline reads in order.
#pragma once

#include <string>
#include <vector>

#include "gdedup/job.h"

namespace gdedup::job {

struct ResolvedInputs {
  std::vector<std::string> paths;    // in the order they are read
  std::vector<std::string> skipped;  // missing or unreadable (JobInputs::skip_missing)
};

// The INPUT arguments first, then the list's paths, each in the order given;
// no INPUT and no list means standard input ("-"). The list is read whole
// here, once: a list file that changes while the job runs does not change
// the job. Empty entries of the list are ignored. A folder is refused
// (Error naming it, as an input that cannot be opened) unless `recursive`; then it stands for every
// regular file under it, in byte order of their paths, however deep
// (fs::list_folder_files), links met inside it not followed (neither
// linked files nor linked folders are read) and other special files
// (pipes, sockets, devices) left out. Named paths, links included, are
// taken as named. A path that does not exist, or an entry under a folder
// that cannot be read, is an Error naming it unless `skip_missing`, which
// warns once per path and leaves it out (in `skipped`).
// Throws UsageError for a list that is a folder or names no path, for
// standard input named twice (also as the list), and when nothing is left
// to read; Error for a list that cannot be read or a folder that cannot be
// walked.
ResolvedInputs resolve_inputs(const JobInputs& inputs, JobEvents& events);

}  // namespace gdedup::job
