// gdedup: entry point. Builds the command line, runs the chosen subcommand
// and turns every failure into one line on stderr and an exit status
// (exit_status.h).
#include <exception>
#include <map>
#include <sstream>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/console.h"
#include "cli/exit_status.h"
#include "cli/flags.h"
#include "cli/interrupt.h"
#include "cli/mpi_launch.h"
#include "cli/options.h"
#include "cli/parse_errors.h"
#include "cli/standard_output.h"
#include "cli/version.h"
#include "gdedup/frontend/output_writer.h"
#include "gdedup/frontend/paths.h"
#include "gdedup/frontend/standard_streams.h"

namespace gdedup::cli {
namespace {

// CLI11's messages start with a capital and sometimes an option list; ours
// are one lowercase-led line with where to look next.
int report_parse_error(const CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
  std::string where = "gdedup";
  std::string command;
  for (const CLI::App* sub : app.get_subcommands()) {
    where += " " + sub->get_name();
    command = sub->get_name();
  }
  std::string message = parse_error_text(e.what(), command);
  if (app.get_subcommands().empty() && argc > 1 && argv[1][0] != '-') {
    message = std::string("unknown command '") + argv[1] +
              "': expected dedup, build, query, merge, info, plan or bench";
  } else if (app.get_subcommands().empty() && message.find("subcommand") != std::string::npos) {
    message = "a command is required: dedup, build, query, merge, info, plan or bench";
  } else if (!message.empty() && message[0] >= 'A' && message[0] <= 'Z' &&
             !(message.size() > 1 && message[1] >= 'A' && message[1] <= 'Z')) {
    message[0] = static_cast<char>(message[0] + 32);
  }
  Console::get().error(message + " (see '" + where + " " + flag::kHelp + "')");
  return kExitUsage;
}

int report_failure(const std::exception_ptr& failure, AdviceFor advice) {
  std::string message;
  const int status = failure_status(failure, message, advice);
  if (!message.empty()) Console::get().error(message);
  return status;
}

int run(int argc, char** argv) {
  remember_command_line(argc, argv);
  CLI::App app{
      "gdedup: remove duplicate records (lines, URLs, 64-bit fingerprints) from very large "
      "inputs in one streaming pass, with a blocked Bloom filter on the GPU or the CPU",
      "gdedup"};
  app.set_help_flag(flag::kHelp.names(), "Print this help message and exit");
  app.set_version_flag(flag::kVersion.names(), std::string("gdedup ") + kVersion);
  app.require_subcommand(1);
  app.footer(
      "Run 'gdedup COMMAND " + flag::kHelp + "' for the options of each command.\n"
      "Exit status: 0 success, 1 runtime error (I/O, damaged file, no GPU), 2 usage error, "
      "3 interrupted with a checkpoint to resume from (" + flag::kCheckpoint + "), 4 the filter "
      "ended far past its plan (unique records probably lost; the message gives the " +
      flag::kCapacity + " to use), or an exact set or a merge would pass " + flag::kMaxMemory +
      " (nothing saved).");

  std::map<std::string, Action> actions;
  actions["dedup"] = add_dedup_command(app);
  actions["build"] = add_build_command(app);
  actions["query"] = add_query_command(app);
  actions["merge"] = add_merge_command(app);
  actions["info"] = add_info_command(app);
  actions["plan"] = add_plan_command(app);
  actions["bench"] = add_bench_command(app);
  refuse_options_taken_as_files(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) {
      // --help, --version: printed on stdout, and checked as all it gets.
      std::ostringstream text;
      const int status = app.exit(e, text, text);
      print(text.str());
      return status;
    }
    return report_parse_error(app, e, argc, argv);
  }
  const std::string command = app.get_subcommands().front()->get_name();
  // dedup, build, query and merge say what an interrupted run leaves.
  if (command == "info" || command == "plan" || command == "bench") {
    end_on_signals("gdedup " + command + " changes no file");
  }
  try {
    return actions.at(command)();
  } catch (...) {
    // With the advice of this command's flags (a job's own failures are
    // told by the job's command, job_command.h).
    return report_failure(std::current_exception(), AdviceFor::named(command));
  }
}

}  // namespace
}  // namespace gdedup::cli

int main(int argc, char** argv) {
  // Before anything can open a file: a closed standard stream would hand its
  // number to the first one (gdedup/frontend/standard_streams.h).
  if (const int err = gdedup::fs::hold_standard_streams()) {
    gdedup::cli::Console::get().error(
        "a standard stream (descriptor 0, 1 or 2) is closed, and its place could not be held: " +
        gdedup::fs::error_text(err) + "; nothing was done");
    return gdedup::cli::kExitRuntime;
  }
  int status = 0;
  try {
    // Then: until the handlers are in, a signal kills in silence.
    gdedup::cli::catch_stop_signals();
    gdedup::io::ignore_sigpipe();
    status = gdedup::cli::run(argc, argv);
  } catch (...) {
    status = gdedup::cli::report_failure(std::current_exception(), gdedup::cli::AdviceFor{});
  }
  return gdedup::cli::close_standard_output(status);
}
