// dedup, build and query: check everything that can be checked, set up the
// filter and the backend, run the pipeline, save and report.
#pragma once

#include <string>

#include "cli/options.h"
#include "gdedup/pipeline.h"

namespace gdedup::cli {

// Exit status of a run stopped by SIGINT or SIGTERM after writing a
// checkpoint (0, 1 and 2 are in main.cpp).
inline constexpr int kExitInterrupted = 3;

enum class JobKind { kDedup, kBuild, kQuery };

// Returns the exit status; throws UsageError or Error (see main.cpp).
int run_job(const JobOptions& options, JobKind kind);

// What a signal that ends a run without checkpoints leaves behind: "the job
// did not finish" + `why` + what became of its files.
std::string unfinished_run(const JobOptions& o, JobKind kind, Mode mode, const std::string& why);

// The failure of a job whose output's reader went away (`| head`) and that
// was to save a filter or statistics: a filter saved then would hold the
// keys of records nobody received, and tomorrow's run would drop them as
// seen; so nothing is saved and the job fails. Without either, such a job
// ends quietly with status 0.
std::string closed_pipe_text(const JobOptions& o, bool saves_filter);

}  // namespace gdedup::cli
