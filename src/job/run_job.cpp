// run_job: a job in one process. Everything that can be checked is checked
// before any file is read or created; then the job's target is opened
// (open_target.h), the pipeline runs on it, and the job finishes as every
// job does (job_steps.h).
#include "gdedup/job.h"

#include <memory>
#include <system_error>

#include "gdedup/error.h"
#include "gdedup/job_target.h"
#include "job/checkpoint_job.h"
#include "job/job_checks.h"
#include "job/job_steps.h"
#include "job/open_target.h"
#include "job/overfull.h"
#include "job/publication.h"
#include "job/thread_split.h"

namespace gdedup {
namespace {

JobResult run_in_process(job::Job& j) {
  const JobSpec& o = j.spec;
  JobEvents& events = j.events;
  // Everything the spec asks is checked before anything is read or created.
  job::check_target_options(j);
  const uint64_t skipped = job::resolve_and_check_inputs(j);
  job::check_files(j);
  // Held until the job ends; taken before any file is read or created, so
  // that a job waiting for the file starts from the one saved before it.
  const FileLocks locks = job::lock_files(j);
  job::refuse_existing_checkpoint(j);
  const std::unique_ptr<JobTarget> target = job::open_target(j);
  events.info("backend " + target->description());

  PipelineOptions run = job::pipeline_options(j);
  run.read_threads = job::job_threads(o, false).read;
  run.resume = target->resume_state();
  run.stop = o.checkpoint.enabled() ? events.stop() : nullptr;
  bool began = false;  // a batch went through: the files may have changed
  run.on_progress = [&events, &began, &target](const Progress& p) {
    began = true;
    events.progress(p, target->growing_layers());
  };
  target->prepare_run(run);
  JobResult result = job::start_result(j, skipped, run.resume);
  if (!job::run_stream(j, result, run.resume != nullptr, began,
                       [&] { return target->run(run); })) {
    return result;
  }
  // The output is in place: a failure from here on says so (publication.h).
  const TargetEnd end = target->end_run(job::uncounted_keys(result.stats, result.mode,
                                                            o.missing_key));
  target->report(result);
  job::finish_job(j, job::ending_of(*target, end), result);
  return result;
}

}  // namespace

JobResult run_job(const JobSpec& spec, JobEvents& events) {
  job::Job j(spec, events);
  try {
    return run_in_process(j);
  } catch (const std::system_error& e) {
    // A thread of the front end, the output or a checkpoint (std::thread),
    // as a ThreadPool's: an Error the front ends tell and advise on.
    if (!is_thread_refusal(e)) throw;
    throw thread_refused("the job's threads", e);
  } catch (...) {
    // Once the output has taken its place, a failure says what it holds.
    std::rethrow_exception(job::with_what_is_published(j, std::current_exception()));
  }
}

}  // namespace gdedup
