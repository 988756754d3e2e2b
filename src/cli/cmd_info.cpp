// gdedup info: what a filter file holds.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/options.h"
#include "cli/report.h"
#include "gdedup/filter_file.h"

namespace gdedup::cli {
namespace {

struct InfoOptions {
  std::vector<std::string> files;
  bool json = false;
};

int run_info(const InfoOptions& options) {
  std::string out;
  for (size_t i = 0; i < options.files.size(); ++i) {
    const std::string& path = options.files[i];
    // The header alone has no fill; the bit array is read (and its checksum
    // verified) to count set bits.
    const Filter filter = load_filter(path);
    const FilterFileInfo info = read_filter_info(path);
    const FilterState state = filter_state(filter);
    if (options.json) {
      if (options.files.size() > 1) out += i == 0 ? "[\n" : ",\n";
      out += info_json(path, info, state).str();
    } else {
      if (i > 0) out += "\n";
      out += info_text(path, info, state);
    }
  }
  if (options.json) out += options.files.size() > 1 ? "\n]\n" : "\n";
  std::cout << out << std::flush;
  return 0;
}

}  // namespace

Action add_info_command(CLI::App& app) {
  auto options = std::make_shared<InfoOptions>();
  CLI::App* sub = app.add_subcommand(
      "info", "Show a filter file's parameters, fill, estimated keys and current FPR");
  sub->add_option("files", options->files, "Filter files")
      ->type_name("FILE...")
      ->required()
      ->group(kGroupInput);
  sub->add_flag("--json", options->json,
                "Print a JSON object (an array of them for several files)")
      ->group(kGroupOutput);
  return [options] { return run_info(*options); };
}

}  // namespace gdedup::cli
