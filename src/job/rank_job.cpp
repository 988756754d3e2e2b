// RankJob: a job as one rank of an MPI job runs it, on the steps every job
// shares (job_steps.h); its target (rank_targets.h) is this rank's part of
// an mpi::ShardedFilter, or in exact mode of an mpi::ShardedSet.
#include "gdedup/frontend/rank_job.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gdedup/error.h"
#include "gdedup/job_target.h"
#include "job/checkpoint_job.h"
#include "job/growth_choice.h"
#include "job/job_checks.h"
#include "job/job_steps.h"
#include "job/overfull.h"
#include "job/publication.h"
#include "job/rank_targets.h"

namespace gdedup {

struct RankJob::State {
  State(const JobSpec& s, JobEvents& e, const mpi::RankInfo& m) : spec(s), job(spec, e), me(m) {}
  JobSpec spec;  // a copy: the job's steps keep a reference
  job::Job job;
  mpi::RankInfo me;
  uint64_t inputs_skipped = 0;
  std::unique_ptr<JobTarget> target;
  FileLocks locks;  // rank 0's
};

namespace {

// What one process would accept but the ranks cannot do yet: refused by
// name, never ignored.
void refuse_unsupported(const job::Job& j) {
  if (j.spec.threads > 1) {
    throw UsageError(j.name(JobOption::kThreads) + " is not supported under " +
                     j.name(JobOption::kMpi) + " yet; each rank reads with one thread: run "
                     "more ranks instead (" + j.name(JobOption::kFilterThreads) + " sets the "
                     "threads that run a rank's blocks on its CPU)");
  }
}

// What one process accepts but ranks do not: a device, which each rank
// takes from its place on its machine; in exact mode the GPU (a rank's
// part of the set is held on its CPU).
void refuse_on_ranks(const JobSpec& spec, const OptionNames& names) {
  if (spec.gave(JobOption::kDevice)) {
    throw UsageError(names.given(JobOption::kDevice) + " has no effect with " +
                     names.name(JobOption::kMpi) + ": each rank runs on the GPU its rank on its "
                     "machine numbers (the first rank of a machine on GPU 0, the next on GPU "
                     "1, ...); drop " + names.name(JobOption::kDevice));
  }
  if (spec.exact && spec.backend == "gpu") {
    throw UsageError(names.given(JobOption::kBackend) + " cannot run " +
                     names.name(JobOption::kExact) + " under " + names.name(JobOption::kMpi) +
                     " yet: each rank holds its part of the set on its CPU; drop " +
                     names.name(JobOption::kBackend) + ", or run the job in one process");
  }
}

}  // namespace

RankJob::RankJob(const JobSpec& spec, JobEvents& events, const mpi::RankInfo& me)
    : state_(std::make_unique<State>(spec, events, me)) {
  check_job_spec(spec, events);
  refuse_on_ranks(spec, events);
  // A column's null keys are told apart (mpi/row_group_pieces.h).
  if (spec.format == InputFormat::kText && spec.keys.key.structured() &&
      spec.keys.key.kind != keys::KeySpec::Kind::kColumn) {
    throw UsageError(events.with(JobOption::kKey, spec.keys.key_text()) + " does not run on "
                     "the ranks of an MPI job yet: its records without the key are not "
                     "told apart there");
  }
  state_->inputs_skipped = job::resolve_and_check_inputs(state_->job);
}

RankJob::~RankJob() = default;

void RankJob::check_same_files() {
  const JobSpec& o = state_->spec;
  std::vector<std::pair<std::string, std::string>> job_files;
  if (!o.filter_path.empty()) {
    job_files.emplace_back(o.exact ? "set file" : "filter file", o.filter_path);
  }
  if (o.checkpoint.resume) job_files.emplace_back("checkpoint", o.checkpoint.path);
  mpi::check_same_inputs(state_->job.inputs, job_files);
}

void RankJob::prepare() {
  State& s = *state_;
  const job::Job& j = s.job;
  refuse_unsupported(j);
  if (!s.spec.exact) job::growth_chosen(j);
  job::check_files(j);
  if (s.me.rank == 0) s.locks = job::lock_files(j);
  job::refuse_existing_checkpoint(j);
  s.target = job::open_rank_target(j, s.me);
}

JobResult RankJob::run() {
  State& s = *state_;
  job::Job& j = s.job;
  const JobSpec& o = s.spec;
  try {
    PipelineOptions run = job::pipeline_options(j);
    run.resume = s.target->resume_state();
    run.stop = o.checkpoint.enabled() ? j.events.stop() : nullptr;
    run.on_progress = [&j](const Progress& p) { j.events.progress(p, 0); };
    s.target->prepare_run(run);
    JobResult result = job::start_result(j, s.inputs_skipped, run.resume);
    result.stats = s.target->run(run);
    if (result.stats.interrupted) {
      // The checkpoint, which every rank took part in, is written.
      result.status = JobStatus::kInterrupted;
      result.message = job::interrupted_line(j, result.stats);
      return result;
    }
    j.published.output = true;
    const TargetEnd end =
        s.target->end_run(job::uncounted_keys(result.stats, result.mode, o.missing_key));
    job::JobEnding ending = job::ending_of(*s.target, end);
    ending.remove_checkpoint = s.me.rank == 0;
    ending.write_stats = s.me.rank == 0;
    s.target->report(result);
    job::finish_job(j, ending, result);
    return result;
  } catch (const mpi::JobFailed& e) {
    // Once the output has taken its place, the failure says what it holds.
    mpi::JobFailed told = e;
    told.failure = job::with_what_is_published(j, e.failure);
    throw told;
  } catch (...) {
    std::rethrow_exception(job::with_what_is_published(j, std::current_exception()));
  }
}

bool RankJob::closed_output_is_failure() const {
  return job::closed_output_is_failure(state_->spec);
}

std::string RankJob::closed_pipe_text() const { return job::closed_pipe_text(state_->job); }

}  // namespace gdedup
