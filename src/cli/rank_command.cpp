// dedup, build and query as the ranks of an MPI job (--mpi; gdedup/frontend/rank_job.h,
// docs/SCALE-OUT.md). Every rank runs the same checks on the same command
// line; when one fails, one message is printed (by the lowest rank that
// failed, naming it unless every rank failed alike) and every rank exits
// with the job's worst status. Once work has begun, a failure on any rank
// ends every rank through abort_job, with a message naming the rank and its
// host. Rank 0 holds the locks on the files the job writes, writes the
// filter file and prints the summary.
#include <functional>
#include <optional>
#include <string>

#include "cli/command_events.h"
#include "cli/console.h"
#include "cli/exit_status.h"
#include "cli/flags.h"
#include "cli/interrupt.h"
#include "cli/job_command.h"
#include "cli/job_spec.h"
#include "cli/mpi_launch.h"
#include "cli/progress.h"
#include "gdedup/error.h"
#include "gdedup/frontend/mpi.h"
#include "gdedup/frontend/rank_job.h"

namespace gdedup::cli {
namespace {

bool broken_pipe(const std::exception_ptr& failure) {
  try {
    std::rethrow_exception(failure);
  } catch (const Error& e) {
    return e.kind() == ErrorKind::broken_pipe;
  } catch (...) {
    return false;
  }
}

// MPI started, or an Error that says how to run without it.
mpi::RankInfo join_ranks() {
  try {
    return mpi::join(nullptr, nullptr);
  } catch (const Error& e) {
    throw Error(e.what() + ("; without " + flag::kMpi + " the job runs in one process"), e);
  }
}

// The launcher and the command line: one job needs every rank joined and
// given the same. Returns 0, or the status every rank ends with.
int check_launch(const JobOptions& options, const mpi::RankInfo& me, const std::string& where) {
  Console& console = Console::get();
  // A launcher that started N processes which MPI could not join (srun
  // without the MPI library's plugin: each a world of one) would have
  // each run the whole job into the same files.
  const MpiLaunch launch = detect_mpi_launch();
  if (launch.processes > 1 && launch.processes != me.ranks) {
    console.error(where + "the launcher started " + std::to_string(launch.processes) +
                  " processes (" + launch.evidence + ") but MPI joined " +
                  std::to_string(me.ranks) + " of them into this job, so they cannot share "
                  "it; start them with an MPI plugin the MPI library supports (for OpenMPI "
                  "under Slurm, srun --mpi=pmix), or with mpirun");
    return kExitUsage;
  }
  if (!mpi::same_everywhere(std::hash<std::string>{}(command_line()))) {
    // Every rank finds it: rank 0 says it.
    if (me.rank == 0) {
      console.error("the ranks were not all given the same command line, which one job "
                    "needs; to run a job of its own in each process, give each " +
                    flag::kNoMpi + " (and files of its own)");
    }
    // mpirun stops the ranks still leaving once rank 0 is gone: they end
    // without a line of their own.
    end_quietly_on_signals();
    return kExitUsage;
  }
  if (!options.mpi_launch.empty()) {
    console.info("started as one of " + std::to_string(me.ranks) + " processes by an MPI "
                 "launcher (" + options.mpi_launch + "): one job over " +
                 std::to_string(me.ranks) + " ranks (" + flag::kNoMpi + " runs each alone)");
  }
  return 0;
}

// The end of a job that ran: what rank 0 says (and a rank that got a
// signal too late to stop the job, naming itself), and the status.
int report_result(const JobSpec& spec, const JobResult& result, const mpi::RankInfo& me,
                  const std::string& where) {
  Console& console = Console::get();
  if (result.status == JobStatus::kInterrupted) {
    // Every rank's part of the checkpoint is written; rank 0 says so, and
    // mpirun may stop the others as soon as its status is not 0.
    end_quietly_on_signals();
    if (me.rank == 0) console.error(result.message);
    return kExitInterrupted;
  }
  console.info(summary_line(result) + " (" + result.backend + ")");
  // Rank 0 says it, as one process would.
  if (result.status == JobStatus::kOverfull && me.rank == 0) console.error(result.message);
  if (const std::string late = late_signal_text(spec, result); !late.empty()) {
    console.error(me.rank == 0 ? late : where + late);
  }
  return result_status(result);
}

}  // namespace

int run_rank_command(const JobOptions& options, JobKind kind) {
  const mpi::RankInfo me = join_ranks();
  Console& console = Console::get();
  console.set_quiet(options.quiet || me.rank != 0);
  const std::string where = "rank " + std::to_string(me.rank) + " on " + me.host + ": ";
  if (const int status = check_launch(options, me, where)) {
    mpi::leave();
    return status;
  }
  // Rank 0 draws the job's progress after every round.
  CommandEvents events(options, me.rank == 0 && progress_wanted(options.progress_mode()));
  std::optional<JobSpec> spec;
  std::optional<RankJob> job;
  std::string message;
  int status = 0;
  // Every rank knows the job failed: the one message is out, and every
  // rank ends with the job's worst status.
  auto end_together = [&](int status) {
    const int job_status = mpi::max_status(status);
    end_quietly_on_signals();  // mpirun stops the slower ranks
    job.reset();
    mpi::leave();
    return job_status;
  };
  // A collective step that found a rank's failure: that rank says it.
  auto report = [&](const mpi::JobFailed& e) {
    if (!e.failure) return end_together(0);
    status = failure_status(e.failure, message, advice_for(options, kind));
    console.error(e.everywhere ? message : where + message);
    return end_together(status);
  };
  // A step of the setup that each rank takes alone: if it failed anywhere,
  // the lowest failing rank says why (naming itself unless every rank
  // failed alike).
  auto set_up = [&](const std::function<void()>& step) {
    try {
      step();
    } catch (...) {
      status = failure_status(std::current_exception(), message, advice_for(options, kind));
    }
    bool all_failed = false;
    const int first = mpi::first_failure(status != 0, all_failed);
    if (static_cast<int>(me.rank) == first) console.error(all_failed ? message : where + message);
    return first < 0;
  };
  const bool parsed = set_up([&] {
    spec.emplace(job_spec(options, kind));
    // mpirun sends SIGTERM to every rank when one of them fails or dies. A
    // checkpointed job takes a signal as a request to stop at the next
    // round with a checkpoint (a second one ends it at once); mpirun's
    // SIGKILL follows if a rank waits on one that died, and the last
    // checkpoint stays.
    if (!spec->checkpoint.enabled()) {
      end_on_signals(unfinished_job_text(*spec, events, " (if another rank failed or was "
                                         "killed, its message or mpirun's says why)"));
    }
    job.emplace(*spec, events, me);
  });
  if (!parsed) return end_together(status);
  try {
    job->check_same_files();
  } catch (const mpi::JobFailed& e) {
    return report(e);
  }
  if (!set_up([&] { job->prepare(); })) return end_together(status);
  try {
    JobResult result;
    try {
      result = job->run();
    } catch (...) {
      events.finish_progress();
      throw;
    }
    events.finish_progress();
    status = report_result(*spec, result, me, where);
  } catch (const mpi::JobFailed& e) {
    if (e.failure && broken_pipe(e.failure)) {
      // Rank 0's stream: as one process, quiet unless it was to save what
      // it saw.
      if (!job->closed_output_is_failure()) return end_together(0);
      console.error(job->closed_pipe_text());
      return end_together(kExitRuntime);
    }
    return report(e);
  } catch (...) {
    // This rank alone knows: the others wait in a collective call.
    status = failure_status(std::current_exception(), message, advice_for(options, kind));
    if (status == 0) {  // its own output closed
      status = kExitRuntime;
      message = job->closed_pipe_text();
    }
    mpi::abort_job(message, status);
  }
  job.reset();
  mpi::leave();
  return status;
}

}  // namespace gdedup::cli
