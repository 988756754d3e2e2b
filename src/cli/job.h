// dedup, build and query: check everything that can be checked, set up the
// filter and the backend, run the pipeline, save and report.
#pragma once

#include "cli/options.h"

namespace gdedup::cli {

// Exit status of a run stopped by SIGINT or SIGTERM after writing a
// checkpoint (0, 1 and 2 are in main.cpp).
inline constexpr int kExitInterrupted = 3;

enum class JobKind { kDedup, kBuild, kQuery };

// Returns the exit status; throws UsageError or Error (see main.cpp).
int run_job(const JobOptions& options, JobKind kind);

}  // namespace gdedup::cli
