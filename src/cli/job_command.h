// dedup, build and query: the options mapped to a JobSpec, the job run by
// the library (gdedup/job.h) in this process or as a rank of an MPI job
// (--mpi), and its result said on stderr with an exit status.
#pragma once

#include "cli/error_advice.h"
#include "cli/options.h"
#include "gdedup/job.h"

namespace gdedup::cli {

// Returns the exit status (exit_status.h); a failure of the job is said
// with the flags that help a job of its kind (advice_for); throws
// UsageError or Error for options that make no job.
int run_job_command(const JobOptions& options, JobKind kind);

// Whose flags help a failed job of `kind`: an exact set's (--exact) or a
// filter's.
inline AdviceFor advice_for(const JobOptions& options, JobKind kind) {
  return AdviceFor::job(kind, options.exact);
}

// The same as one rank of an MPI job: every rank runs it on the same
// command line, and one message says why the job failed.
int run_rank_command(const JobOptions& options, JobKind kind);

// The line for a stop signal that came too late to stop the job (it was
// putting its results in place, or had read all its input), once it has
// ended with `result`: it completed, and these files hold its result. ""
// when no signal came, or the job did not complete.
std::string late_signal_text(const JobSpec& spec, const JobResult& result);

}  // namespace gdedup::cli
