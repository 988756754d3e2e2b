#include "cli/exit_status.h"

#include <new>
#include <system_error>

#include "cli/error_advice.h"
#include "cli/flags.h"
#include "gdedup/error.h"

namespace gdedup::cli {

int failure_status(const std::exception_ptr& failure, std::string& message, AdviceFor job) {
  message.clear();
  // A failure of no Error of its own, and the flags that need less memory.
  const auto with_memory_advice = [&job](std::string text) {
    const std::string advice = memory_advice(job);
    return advice.empty() ? text : text + "; " + advice;
  };
  try {
    std::rethrow_exception(failure);
  } catch (const UsageError& e) {
    message = with_advice(e, job);
    return kExitUsage;
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::broken_pipe) return 0;
    message = with_advice(e, job);
    // An exact set past its cap: the job ended before its end, as a filter
    // past its plan does, and says what to give.
    if (e.kind() == ErrorKind::set_full) return kExitOverfull;
  } catch (const std::bad_alloc&) {
    message = with_memory_advice("out of memory");
  } catch (const std::system_error& e) {
    // std::thread throws this when the system has no memory for a new
    // thread's stack (EAGAIN, as under a small ulimit -v).
    if (e.code() == std::errc::resource_unavailable_try_again ||
        e.code() == std::errc::not_enough_memory) {
      message = "out of memory: the system refused a new thread (" + e.code().message() +
                "); a memory limit such as ulimit -v leaves too little";
      if (job.is_job()) message += ", or fewer " + flag::kThreads + " need less";
    } else {
      message = std::string("unexpected error: ") + e.what();
    }
  } catch (const std::exception& e) {
    message = std::string("unexpected error: ") + e.what();
  } catch (...) {
    message = "unexpected error";
  }
  return kExitRuntime;
}

int result_status(const JobResult& result) {
  switch (result.status) {
    case JobStatus::kComplete: return 0;
    case JobStatus::kInterrupted: return kExitInterrupted;
    case JobStatus::kOverfull: return kExitOverfull;
    case JobStatus::kOutputClosed: return 0;
  }
  return kExitRuntime;
}

}  // namespace gdedup::cli
