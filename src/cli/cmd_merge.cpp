// gdedup merge: the OR of filters with identical parameters.
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/console.h"
#include "cli/file_locks.h"
#include "cli/interrupt.h"
#include "cli/numbers.h"
#include "cli/options.h"
#include "cli/preflight.h"
#include "cli/report.h"
#include "gdedup/error.h"
#include "gdedup/filter_file.h"

namespace gdedup::cli {
namespace {

struct MergeOptions {
  std::vector<std::string> files;
  std::string output;
  bool quiet = false;
};

// The first parameter in which b differs from a, worded with both names;
// "" when they are identical.
std::string difference(const FilterParams& a, const std::string& name_a, const FilterParams& b,
                       const std::string& name_b) {
  auto both = [&](const std::string& what, const std::string& va, const std::string& vb) {
    return "different " + what + " (" + va + " in " + name_a + ", " + vb + " in " + name_b + ")";
  };
  if (a.layout.block_bits != b.layout.block_bits) {
    return both("block sizes", std::to_string(a.layout.block_bits) + " bits",
                std::to_string(b.layout.block_bits) + " bits");
  }
  if (a.layout.k != b.layout.k) {
    return both("bits per key", "k = " + std::to_string(a.layout.k),
                "k = " + std::to_string(b.layout.k));
  }
  if (a.num_blocks != b.num_blocks) {
    return both("block counts", group_digits(a.num_blocks), group_digits(b.num_blocks));
  }
  if (a.seed != b.seed) return both("seeds", hex64(a.seed), hex64(b.seed));
  return "";
}

// The output replaces a file only if that file is one of the inputs or
// another filter: a typo (-o urls.txt) must not destroy a file of another
// kind. Throws UsageError naming it.
void check_replaced_file(const MergeOptions& options) {
  if (!file_exists(options.output)) return;
  const WrittenFile output{options.output, "output", false};
  try {
    check_written_files({output}, options.files);
  } catch (const UsageError&) {
    return;  // one of the inputs: replaced once the merge is complete
  }
  try {
    read_filter_info(options.output);
  } catch (const Error&) {
    throw UsageError("output " + options.output + " exists and is not a readable gdedup filter file, and "
                     "merge would replace it with the merged filter; name a new file, a filter "
                     "or one of the inputs (nothing was done)");
  }
}

int run_merge(const MergeOptions& options) {
  Console::get().set_quiet(options.quiet);
  end_on_signals("the merge did not finish and " + options.output + " was not written");
  check_writable({options.output, "output", false});
  // Held until the merge ends, taken before any input is read: a job that
  // saves this filter meanwhile is waited for, and its keys are in the
  // inputs read here when the output is one of them, never lost by the
  // rename below.
  const FileLocks locks = lock_job_files("", "", options.output);
  check_replaced_file(options);
  // Headers first: a mismatch is refused before gigabytes are read.
  std::vector<FilterFileInfo> infos;
  for (const std::string& path : options.files) infos.push_back(read_filter_info(path));
  for (size_t i = 1; i < infos.size(); ++i) {
    const std::string diff =
        difference(infos[0].params, options.files[0], infos[i].params, options.files[i]);
    if (!diff.empty()) {
      throw UsageError("cannot merge " + options.files[0] + " and " + options.files[i] + ": " +
                       diff + "; only filters with identical parameters can be merged");
    }
  }
  // One filter in memory besides the result: the output may be an input,
  // and save_filter replaces it only once the merge is complete.
  Filter merged = load_filter(options.files[0]);
  for (size_t i = 1; i < options.files.size(); ++i) merged.merge(load_filter(options.files[i]));
  save_filter(merged, options.output);
  const FilterState state = filter_state(merged);
  Console::get().info("merged " + std::to_string(options.files.size()) + " filters into " +
                      options.output + ": " + format_percent(state.fill) + " of bits set, " +
                      approx_keys(state.estimated_keys, "distinct keys") + ", FPR now " +
                      format_rate(state.current_fpr));
  return 0;
}

}  // namespace

Action add_merge_command(CLI::App& app) {
  auto options = std::make_shared<MergeOptions>();
  CLI::App* sub = app.add_subcommand(
      "merge", "Combine filters built with identical parameters (bitwise OR) into one file");
  sub->add_option("filters", options->files, "Filter files to merge (at least two)")
      ->type_name("FILTER...")
      ->required()
      ->expected(2, -1)
      ->group(kGroupInput);
  sub->add_option("-o,--output", options->output,
                  "The merged filter; may be one of the inputs (replaced atomically)")
      ->type_name("FILE")
      ->required()
      ->group(kGroupOutput);
  sub->add_flag("-q,--quiet", options->quiet, "No summary line on stderr")->group(kGroupOutput);
  return [options] { return run_merge(*options); };
}

}  // namespace gdedup::cli
