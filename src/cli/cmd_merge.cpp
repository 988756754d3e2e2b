// gdedup merge: its flags as a MergeSpec, run by the library's merge job
// (gdedup/merge_job.h: the OR of filters, or the union of the exact sets of
// --exact; docs/CLI.md says what the result holds), and its result as lines
// on stderr and an exit status.
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/command_events.h"
#include "cli/commands.h"
#include "cli/console.h"
#include "cli/exit_status.h"
#include "cli/flags.h"
#include "cli/interrupt.h"
#include "cli/mpi_launch.h"
#include "cli/numbers.h"
#include "cli/options.h"
#include "gdedup/frontend/path_text.h"
#include "gdedup/merge_job.h"

namespace gdedup::cli {
namespace {

struct MergeOptions {
  MergeSpec spec;
  bool quiet = false;
  std::string max_memory;  // as given; "" for no cap
};

// The merge's notes on stderr, its options named by their flags and
// --max-memory quoted as typed.
class MergeEvents : public ConsoleEvents {
 public:
  explicit MergeEvents(const MergeOptions& options) : options_(options) {}
  std::string given(JobOption option) const override {
    if (option == JobOption::kMaxMemory) return name(option) + " " + options_.max_memory;
    return ConsoleEvents::given(option);
  }

 private:
  const MergeOptions& options_;
};

int run_merge(MergeOptions& options) {
  MergeSpec& spec = options.spec;
  if (!options.max_memory.empty()) {
    spec.max_memory = parse_memory_cap(options.max_memory, flag::kMaxMemory.name);
  }
  Console::get().set_quiet(options.quiet);
  end_on_signals("the merge did not finish and " + fs::printable(spec.output) +
                 " was not written");
  MergeEvents events(options);
  const MergeResult result = run_merge_job(spec, events);
  if (result.status == MergeStatus::kPastMaxMemory) {
    Console::get().error(result.message);
    return kExitOverfull;
  }
  Console::get().info(merge_summary_line(spec, result));
  if (result.status == MergeStatus::kOverfull) {
    Console::get().error(result.message);
    return kExitOverfull;
  }
  return 0;
}

}  // namespace

Action add_merge_command(CLI::App& app) {
  auto options = std::make_shared<MergeOptions>();
  CLI::App* sub = app.add_subcommand(
      "merge", "Combine filters built with identical parameters (bitwise OR, layer by layer for "
               "filters that grow), or the exact sets of " + flag::kExact +
                   " (their union), into one file");
  sub->add_option("filters", options->spec.inputs,
                  "Filter files, or set files, to merge (at least two)")
      ->type_name("FILTER...")
      ->required()
      ->expected(2, -1)
      ->group(kGroupInput);
  sub->add_option(flag::kOutput.names(), options->spec.output,
                  "The merged filter or set; may be one of the inputs (replaced atomically)")
      ->type_name("FILE")
      ->required()
      ->group(kGroupOutput);
  sub->add_flag(flag::kQuiet.names(), options->quiet, "No summary line on stderr")
      ->group(kGroupOutput);
  sub->add_option(flag::kMaxMemory.names(), options->max_memory,
                  "The most bytes the merged set (or filter) may take: 4G, 512MiB (powers of "
                  "1024); past it the merge ends with exit status 4 and writes nothing. A set's "
                  "union is capped as it is made; a filter's size is known from its inputs' "
                  "headers, and checked before any is read")
      ->type_name("BYTES")
      ->group(kGroupOutput);
  sub->add_flag(flag::kIgnoreKeyRules.names(), options->spec.ignore_key_rules,
                "Merge filters whose keys were made by different rules (key, delimiter, "
                "normalization, record separator); the result records the first one's")
      ->group(kGroupInput);
  return [options] {
    refuse_mpi_launch("merge");
    return run_merge(*options);
  };
}

}  // namespace gdedup::cli
