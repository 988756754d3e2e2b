// dedup, build and query: check everything that can be checked, set up the
// filter and the backend, run the pipeline, save and report.
#pragma once

#include "cli/options.h"

namespace gdedup::cli {

enum class JobKind { kDedup, kBuild, kQuery };

// Returns the exit status; throws UsageError or Error (see main.cpp).
int run_job(const JobOptions& options, JobKind kind);

}  // namespace gdedup::cli
