// What a job says, as the command says it (gdedup/job.h, JobEvents): notes
// and warnings on stderr through the Console, the progress line, the stop
// flag the signal handlers set (and which signal set it), the hold on
// signals while the job puts its results in place, and the flags that name
// each option.
#pragma once

#include <string>

#include "cli/options.h"
#include "cli/progress.h"
#include "gdedup/job.h"

namespace gdedup::cli {

// Notes and warnings on stderr, options named by their flags: for any
// library call that speaks (a merge's locks).
class ConsoleEvents : public JobEvents {
 public:
  void info(const std::string& message) override;
  void warn(const std::string& message) override;
  std::string name(JobOption option) const override;
};

// A job's: with the progress line, the stop flag, and the values as typed.
class CommandEvents : public ConsoleEvents {
 public:
  // `o`: the options as typed, quoted back in messages; it must outlive this.
  CommandEvents(const JobOptions& o, bool show_progress) : options_(o), progress_(show_progress) {}

  void progress(const Progress& progress, size_t layers) override;
  const std::atomic<bool>* stop() const override;
  std::string stop_cause() const override;
  // From now on a signal waits for the job to end (interrupt.h).
  void publishing() override;
  std::string given(JobOption option) const override;

  // Erases the progress line: the summary or an error takes its place.
  void finish_progress() { progress_.finish(); }

 private:
  const JobOptions& options_;
  ProgressLine progress_;
};

}  // namespace gdedup::cli
