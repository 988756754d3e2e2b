// dedup, build and query: the options mapped to a JobSpec, the job run by
// the library (gdedup/job.h) in this process or as a rank of an MPI job
// (--mpi), and its result said on stderr with an exit status.
#pragma once

#include "cli/options.h"
#include "gdedup/job.h"

namespace gdedup::cli {

// Returns the exit status (exit_status.h); throws UsageError or Error.
int run_job_command(const JobOptions& options, JobKind kind);

// The same as one rank of an MPI job: every rank runs it on the same
// command line, and one message says why the job failed.
int run_rank_command(const JobOptions& options, JobKind kind);

}  // namespace gdedup::cli
