// The target of a job run as one rank of an MPI job (gdedup/job_target.h):
// this rank's part of an mpi::ShardedFilter, or in exact mode of an
// mpi::ShardedSet, opened in one step as open_target opens one process's
// (rank 0 alone saves the file, so no rank compares it with its part).
// Collective where the sharded filter or set is: run, end_run and save
// (see gdedup/frontend/rank_job.h).
#pragma once

#include <memory>

#include "gdedup/frontend/mpi.h"
#include "gdedup/job_target.h"
#include "job/context.h"

namespace gdedup::job {

// Alone, after the job's files are checked and locked: the target resumed,
// read from the job's file, or new.
std::unique_ptr<JobTarget> open_rank_target(const Job& job, const mpi::RankInfo& me);

}  // namespace gdedup::job
