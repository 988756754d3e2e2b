#include "cli/job_command.h"

#include <string>

#include "cli/command_events.h"
#include "cli/console.h"
#include "cli/exit_status.h"
#include "cli/interrupt.h"
#include "cli/job_spec.h"
#include "cli/progress.h"

namespace gdedup::cli {

int run_job_command(const JobOptions& options, JobKind kind) {
  if (options.mpi) return run_rank_command(options, kind);
  Console& console = Console::get();
  console.set_quiet(options.quiet);
  const JobSpec spec = job_spec(options, kind);
  CommandEvents events(options, progress_wanted(options.progress_mode()));
  // A checkpointed run stops at a batch boundary with a checkpoint, even for
  // a signal that came during the checks (CommandEvents::stop); any other
  // ends at once.
  if (!spec.checkpoint.enabled()) end_on_signals(unfinished_job_text(spec, events, ""));
  JobResult result;
  try {
    result = run_job(spec, events);
  } catch (...) {
    events.finish_progress();
    std::string message;
    const int status = failure_status(std::current_exception(), message, advice_for(options, kind));
    if (!message.empty()) console.error(message);
    return status;
  }
  events.finish_progress();
  switch (result.status) {
    case JobStatus::kOutputClosed: break;
    case JobStatus::kInterrupted: console.error(result.message); break;
    case JobStatus::kComplete: console.info(summary_line(result)); break;
    case JobStatus::kOverfull:
      // Everything is written; the status says it is not what was promised.
      console.info(summary_line(result));
      console.error(result.message);
      break;
  }
  if (const std::string late = late_signal_text(spec, result); !late.empty()) {
    console.error(late);
  }
  return result_status(result);
}

std::string late_signal_text(const JobSpec& spec, const JobResult& result) {
  const std::string sig = noted_signal();
  const bool completed =
      result.status == JobStatus::kComplete || result.status == JobStatus::kOverfull;
  if (sig.empty() || !completed) return "";
  return sig + " came as the job was finishing, so it completed: " +
         completed_job_text(spec, result);
}

}  // namespace gdedup::cli
