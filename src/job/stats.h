// What a finished job reports to programs: the statistics file (JobSpec::
// stats_path). The summary line for people is summary_line (gdedup/job.h).
#pragma once

#include <string>

#include "gdedup/frontend/json.h"
#include "gdedup/job.h"

namespace gdedup::job {

// Member names are documented in docs/CLI.md; keep them stable.
JsonObject stats_json(const JobResult& result);

// Writes `text` to `path` whole: a regular file is replaced through a
// temporary file (fs::Replacement), so it is never left half written;
// standard output, a device or a pipe is written in place. Error naming the
// file and the reason on failure.
void write_stats_file(const std::string& path, const std::string& text);

}  // namespace gdedup::job
