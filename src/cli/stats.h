// What a finished job reports: the --stats JSON file and the summary line.
#pragma once

#include <string>

#include "cli/json.h"
#include "cli/report.h"
#include "gdedup/pipeline.h"

namespace gdedup::cli {

struct JobReport {
  Mode mode = Mode::kDedup;
  PipelineStats stats;
  FilterSummary filter;
  std::string backend;
  bool checkpointing = false;  // --checkpoint: the summary says how many were written
  uint64_t inputs = 0;          // files read (standard input counts as one)
  uint64_t inputs_skipped = 0;  // named but missing, left out by --skip-missing
  // A resumed run's stats count the records before the checkpoint too; the
  // rates count only what this run read.
  uint64_t resumed_records = 0;
  uint64_t resumed_bytes = 0;
};

// Member names are documented in docs/CLI.md; keep them stable.
JsonObject stats_json(const JobReport& report);

// "1,000,000 records: 600,000 kept, 400,000 duplicates dropped in 1.23 s
// (813k records/s); filter 12.34% full, ~600,000 distinct keys, FPR now ..."
std::string summary_line(const JobReport& report);

// Writes `text` to `path` whole: a regular file is replaced through a
// temporary file (fs::Replacement), so it is never left half written;
// standard output, a device or a pipe is written in place. Error naming the
// file and the reason on failure.
void write_stats_file(const std::string& path, const std::string& text);

}  // namespace gdedup::cli
