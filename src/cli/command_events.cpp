#include "cli/command_events.h"

#include "cli/console.h"
#include "cli/flags.h"
#include "cli/interrupt.h"
#include "cli/job_spec.h"

namespace gdedup::cli {

void ConsoleEvents::info(const std::string& message) { Console::get().info(message); }

void ConsoleEvents::warn(const std::string& message) { Console::get().warn(message); }

void CommandEvents::progress(const Progress& progress, size_t layers) {
  progress_.update(progress, layers);
}

const std::atomic<bool>* CommandEvents::stop() const { return stop_flag(); }

std::string CommandEvents::stop_cause() const { return noted_signal(); }

void CommandEvents::publishing() { publishing_begins(); }

std::string ConsoleEvents::name(JobOption option) const { return flag_of(option).name; }

std::string CommandEvents::given(JobOption option) const { return flag_given(options_, option); }

}  // namespace gdedup::cli
