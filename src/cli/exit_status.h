// The command's exit statuses, and the one table that maps a failure to its
// line on stderr and its status, for one process (main.cpp) and for the
// ranks of an MPI job (rank_command.cpp) alike:
//   0  success (also when the reader of our output goes away: `| head`)
//   1  runtime error: I/O, a damaged file, no device
//   2  usage error: the command line or its values can never work as given
//   3  interrupted (SIGINT, SIGTERM, SIGHUP) with a checkpoint to resume
//      from; without checkpoints such a signal ends the process with a
//      message, by the signal itself (interrupt.h)
//   4  the filter ended far past its plan: records probably lost; or an
//      exact set (or a merge) would pass --max-memory: nothing saved
#pragma once

#include <exception>
#include <string>

#include "cli/error_advice.h"
#include "gdedup/job.h"

namespace gdedup::cli {

inline constexpr int kExitRuntime = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitInterrupted = 3;
inline constexpr int kExitOverfull = 4;

// The status of `failure` and the line that says it (with the flags that
// help a job of `job`'s kind, error_advice.h); a closed output
// (ErrorKind::broken_pipe) is 0 and says nothing.
int failure_status(const std::exception_ptr& failure, std::string& message,
                   AdviceFor job = AdviceFor{});

// The status of a job that ran: 0, kExitInterrupted or kExitOverfull.
int result_status(const JobResult& result);

}  // namespace gdedup::cli
