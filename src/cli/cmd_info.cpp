// gdedup info: what a filter file or a checkpoint holds.
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/checkpoint_info.h"
#include "cli/command_events.h"
#include "cli/commands.h"
#include "cli/console.h"
#include "cli/flags.h"
#include "cli/options.h"
#include "cli/standard_output.h"
#include "gdedup/checkpoint.h"
#include "gdedup/error.h"
#include "gdedup/filter_file.h"
#include "gdedup/frontend/filter_report.h"
#include "gdedup/set_file.h"

namespace gdedup::cli {
namespace {

struct InfoOptions {
  std::vector<std::string> files;
  bool json = false;
  bool all_inputs = false;
};

// The description of one file, as text or JSON. The bit array is read (and
// its checksum verified) to count set bits: the header alone has no fill.
// A set's keys stream by, verified as a load verifies them, but no set is
// made: its memory when loaded is figured from them, and info's own does
// not grow with the set's.
std::string describe(const std::string& path, const InfoOptions& options) {
  if (is_set_file(path)) {
    const SetFileSummary file = summarize_set(path, false);
    return options.json ? set_info_json(path, file).str()
                        : set_info_text(path, file, ConsoleEvents());
  }
  if (is_set_checkpoint(path)) {
    const SetFileSummary checkpoint = summarize_set(path, true);
    return options.json ? set_checkpoint_info_json(path, checkpoint).str()
                        : set_checkpoint_info_text(path, checkpoint, options.all_inputs);
  }
  if (is_checkpoint_file(path)) {
    const Checkpoint checkpoint = load_checkpoint(path);
    return options.json ? checkpoint_info_json(path, checkpoint).str()
                        : checkpoint_info_text(path, checkpoint, options.all_inputs);
  }
  const FilterFile file = load_filter_file(path);
  return options.json ? info_json(path, file).str() : info_text(path, file);
}

// Each file is printed as soon as it is read, and a file that cannot be
// read is reported in its turn without hiding the others; any failure makes
// the exit status 1. Standard output that cannot be written ends the command
// at once (print()).
int run_info(const InfoOptions& options) {
  const bool array = options.json && options.files.size() > 1;
  int status = 0;
  bool first = true;
  if (array) print("[\n");
  for (const std::string& path : options.files) {
    std::string text;
    try {
      text = describe(path, options);
    } catch (const Error& e) {
      Console::get().error(e.what());
      status = 1;
      continue;
    }
    const std::string before = first ? "" : options.json ? ",\n" : "\n";
    print(before + text + (options.json && !array ? "\n" : ""));
    first = false;
  }
  if (array) print("\n]\n");
  return status;
}

}  // namespace

Action add_info_command(CLI::App& app) {
  auto options = std::make_shared<InfoOptions>();
  CLI::App* sub = app.add_subcommand(
      "info", "Show what a filter file (parameters, fill, estimated keys, current FPR), a set "
              "file of " + flag::kExact + " (keys, bytes a key, load, collision chance) or a "
              "checkpoint (its job, how far it got, its filter or set) holds");
  sub->add_option("files", options->files, "Filter files, set files or checkpoints")
      ->type_name("FILE...")
      ->required()
      ->group(kGroupInput);
  sub->add_flag(flag::kJson.names(), options->json,
                "Print a JSON object (an array of them for several files)")
      ->group(kGroupOutput);
  sub->add_flag(flag::kAllInputs.names(), options->all_inputs,
                "List every input of a checkpoint (otherwise a long list shows its count, "
                "its first and last 3 and the current one; " + flag::kJson + " lists them all)")
      ->group(kGroupOutput);
  return [options] { return run_info(*options); };
}

}  // namespace gdedup::cli
