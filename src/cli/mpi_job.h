// dedup, build and query as the ranks of an MPI job (--mpi; gdedup/mpi.h,
// docs/SCALE-OUT.md). Every rank runs the same checks on the same command
// line; when one fails, one message is printed (by the lowest rank that
// failed, naming it unless every rank failed alike) and every rank exits
// with the job's worst status. Once work has begun, a failure on any rank
// ends every rank through abort_job, with a message naming the rank and its
// host. Rank 0 holds the locks on the files the job writes, writes the
// filter file and prints the summary.
#pragma once

#include "cli/job.h"
#include "cli/options.h"

namespace gdedup::cli {

// Returns the exit status; throws Error when the build has no MPI.
int run_mpi_job(const JobOptions& options, JobKind kind);

}  // namespace gdedup::cli
