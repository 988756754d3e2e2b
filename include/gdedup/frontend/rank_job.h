// A job run as one rank of an MPI job (gdedup/frontend/mpi.h, docs/SCALE-OUT.md): the
// same JobSpec as run_job, the same checks, files and result, with the
// filter spread over the ranks. The front end joins MPI, makes sure every
// rank was given the same job, and takes the steps below on every rank in
// order. A step that each rank takes alone may fail on some ranks only: the
// front end learns which through mpi::first_failure and ends every rank with
// one message. A collective step throws mpi::JobFailed on every rank.
#pragma once

#include <memory>

#include "gdedup/frontend/mpi.h"
#include "gdedup/job.h"

namespace gdedup {

class RankJob {
 public:
  // Alone: the spec checked and its inputs resolved. Rank 0 speaks through
  // `events` (the front end quiets the others as it sees fit).
  RankJob(const JobSpec& spec, JobEvents& events, const mpi::RankInfo& me);
  ~RankJob();
  RankJob(const RankJob&) = delete;
  RankJob& operator=(const RankJob&) = delete;

  // Collective: sizing and the pieces are planned from the inputs each rank
  // finds, and each rank reads its blocks of a filter file or checkpoint, so
  // ranks that see different files at one path (each its own working
  // folder, or its machine's copy) are refused before any work.
  void check_same_files();
  // Alone: the job's target, this rank's part of the filter or set, opened
  // (new, from the file, or from the checkpoint); rank 0 takes the locks.
  void prepare();
  // Collective: the work. Once it has begun, a failure on one rank is
  // mpi::JobFailed on the others only if they learn of it in their own
  // work; the front end ends the job (mpi::abort_job) otherwise.
  JobResult run();

  // Whether a closed output is a failure (the job was to save what it saw).
  bool closed_output_is_failure() const;
  // The message of that failure.
  std::string closed_pipe_text() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace gdedup
