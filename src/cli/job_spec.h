// The command's words for a job, mapped to the library's JobSpec
// (gdedup/job.h) and back: the flags dedup, build and query take, parsed
// and checked here once, and each JobOption's flag with the value given.
#pragma once

#include <string>

#include "cli/options.h"
#include "gdedup/job.h"
#include "gdedup/planner.h"

namespace gdedup::cli {

// The spec of `kind` run with `o`. Throws UsageError naming the flag and
// value that cannot be parsed, before any file is read or created.
JobSpec job_spec(const JobOptions& o, JobKind kind);

// --capacity, --fpr, --memory, --block-bits and --allow-high-fpr, parsed.
// Throws UsageError naming the bad value.
JobSizing parse_sizing(const SizingOptions& options);

// For `gdedup plan`: needs --capacity.
Plan plan_standalone(const JobSizing& request);

// The flag that names `option` (cli/flags.h) with the value given in `o`
// ("--max-memory 2G") where messages quote it.
std::string flag_given(const JobOptions& o, JobOption option);

}  // namespace gdedup::cli
