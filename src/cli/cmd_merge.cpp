// gdedup merge: the OR of filters with identical parameters, layer by layer,
// or the union of the exact sets of --exact (docs/CLI.md says what the
// result holds). A set and a Bloom filter are never merged.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/console.h"
#include "cli/command_events.h"
#include "cli/interrupt.h"
#include "cli/mpi_launch.h"
#include "cli/numbers.h"
#include "cli/options.h"
#include "cli/exit_status.h"
#include "gdedup/filter_report.h"
#include "gdedup/error.h"
#include "gdedup/filter_file.h"
#include "gdedup/filter_merge.h"
#include "gdedup/job_files.h"
#include "gdedup/path_text.h"
#include "gdedup/number_text.h"
#include "gdedup/set_file.h"

namespace gdedup::cli {
namespace {

struct MergeOptions {
  std::vector<std::string> files;
  std::string output;
  bool quiet = false;
  bool ignore_key_rules = false;
  std::string max_memory;  // as given; "" for no cap
  uint64_t cap = 0;        // its bytes; 0 for no cap
};

// The merged filter or set would take more than --max-memory: said and
// exit status 4, before anything is written (an existing output is as it
// was). `what` says what takes how much.
int refuse_past_cap(const MergeOptions& options, const std::string& what, uint64_t bytes) {
  Console::get().error("cannot merge into " + fs::printable(options.output) + ": " + what +
                       " " + human_bytes(bytes) + " (" + group_digits(bytes) + " bytes), more "
                       "than --max-memory " + options.max_memory + " allows; nothing was "
                       "written; a larger --max-memory lets the merge go on");
  return kExitOverfull;
}

// The rules of the merged filter: those of the inputs, which must agree
// (gdedup::merged_rules, shared with the Python package). Throws
// UsageError naming the two inputs. Notes the inputs that record no key
// rules.
FilterRules merged_rules(const MergeOptions& options, const std::vector<FilterFileInfo>& infos) {
  const std::vector<std::string>& files = options.files;
  const FilterRules rules = gdedup::merged_rules(infos, files, options.ignore_key_rules);
  for (size_t i = 0; i < infos.size(); ++i) {
    if (!infos[i].rules.keys) {
      Console::get().info("note: " + fs::printable(files[i]) + " does not record its key rules (" +
                          key_rules_text(infos[i].rules, infos[i].version) + ")");
    }
  }
  return rules;
}

// The output replaces a file only if that file is one of the inputs or
// another file of their kind (filter, or set): a typo (-o urls.txt) must not
// destroy a file of another kind. Throws UsageError naming it.
void check_replaced_file(const MergeOptions& options, bool sets) {
  if (!file_exists(options.output)) return;
  const WrittenFile output{options.output, "output", false};
  try {
    check_written_files({output}, options.files);
  } catch (const UsageError&) {
    return;  // one of the inputs: replaced once the merge is complete
  }
  const std::string what = sets ? "set" : "filter";
  try {
    if (sets) {
      read_set_info(options.output);
    } else {
      read_filter_info(options.output);
    }
  } catch (const Error&) {
    throw UsageError("output " + fs::printable(options.output) + " exists and is not a "
                     "readable gdedup " + what + " file, and merge would replace it with the "
                     "merged " + what + "; name a new file, a " + what + " or one of the "
                     "inputs (nothing was done)");
  }
}

bool is_exact_set(const std::string& path) { return is_set_file(path) || is_set_checkpoint(path); }

// True when the inputs are sets; throws UsageError naming a set and a Bloom
// filter when they are mixed (and read_filter_info's Error for an input of
// neither kind).
bool inputs_are_sets(const MergeOptions& options) {
  const std::vector<std::string>& files = options.files;
  const auto set = std::find_if(files.begin(), files.end(), is_exact_set);
  if (set == files.end()) return false;
  const auto other = std::find_if_not(files.begin(), files.end(), is_exact_set);
  if (other == files.end()) return true;
  read_filter_info(*other);  // a file of neither kind is refused as what it is
  throw UsageError("cannot merge " + fs::printable(*set) + " and " + fs::printable(*other) +
                   ": " + fs::printable(*set) + " is an exact set (written with --exact) and " +
                   fs::printable(*other) + " a Bloom filter; a set and a Bloom filter cannot be "
                   "merged (a Bloom filter cannot become a set: build one with gdedup build "
                   "--exact from its inputs)");
}

// The union of sets whose keys were made by the same rules (a hash seed of
// its own would make other keys, so it is never ignored). Headers and rules
// of every input are checked before any keys are read; then their keys
// stream into one set, within --max-memory.
int run_set_merge(const MergeOptions& options) {
  const std::vector<std::string>& files = options.files;
  std::vector<SetFileInfo> infos;
  for (const std::string& path : files) infos.push_back(read_set_info(path));
  for (size_t i = 1; i < files.size(); ++i) {
    const KeyRules& first = infos[0].rules;
    const KeyRules& other = infos[i].rules;
    if (first != other && (!options.ignore_key_rules || first.seed != other.seed)) {
      throw UsageError("cannot merge " + fs::printable(files[0]) + " and " +
                           fs::printable(files[i]) + ": their keys were made by different "
                           "rules (" + first.to_string() + " in " + fs::printable(files[0]) +
                           ", " + other.to_string() + " in " + fs::printable(files[i]) +
                           "); rebuild one with the other's rules",
                       ErrorKind::key_rules_mismatch);
    }
  }
  // The union starts as the set a load of the first input makes, sized for
  // its keys at once: checked against the cap before it is made. Every
  // input's keys then stream into it a piece at a time, so that memory
  // holds the union alone.
  const uint64_t first_bytes = KeySetSizing(infos[0].keys).bytes();
  if (options.cap != 0 && first_bytes > options.cap) {
    return refuse_past_cap(options, "the set of " + fs::printable(files[0]) + " takes",
                           first_bytes);
  }
  KeySet merged(infos[0].keys, KeySetOptions{1, options.cap});
  for (size_t i = 0; i < files.size(); ++i) {
    // Past the cap no more keys go in, but the input is read to its end:
    // a damaged one is told as damaged, not as one that did not fit.
    std::optional<uint64_t> needed;
    read_set_streamed(files[i], false, [](const SetFileInfo&, const ResumeState*) {},
                      [&](const Key84* keys, size_t n) {
                        if (needed) return;
                        try {
                          merged.insert(keys, n);
                        } catch (const Error& e) {
                          if (e.kind() != ErrorKind::set_full) throw;
                          needed = e.needed();
                        }
                      });
    if (needed) {
      return refuse_past_cap(options,
                             (i == 0 ? "the set of " + fs::printable(files[0])
                                     : "with " + fs::printable(files[i]) + " the union") +
                                 " takes at least",
                             *needed);
    }
  }
  save_set_file(merged, infos[0].rules, options.output);
  const uint64_t keys = merged.size();
  Console::get().info("merged " + std::to_string(files.size()) + " sets into " +
                      fs::printable(options.output) + ": " + counted(keys, "distinct key") +
                      ", collision chance " + format_rate(KeySet::collision_chance(keys)));
  return 0;
}

int run_merge(MergeOptions& options) {
  if (!options.max_memory.empty()) options.cap = parse_bytes(options.max_memory, "--max-memory");
  Console::get().set_quiet(options.quiet);
  end_on_signals("the merge did not finish and " + fs::printable(options.output) +
                 " was not written");
  check_writable({options.output, "output", false});
  // Held until the merge ends, taken before any input is read: a job that
  // saves this filter meanwhile is waited for, and its keys are in the
  // inputs read here when the output is one of them, never lost by the
  // rename below.
  ConsoleEvents events;
  const FileLocks locks = lock_job_files("", "", options.output, events);
  const bool sets = inputs_are_sets(options);
  check_replaced_file(options, sets);
  if (sets) return run_set_merge(options);
  // Headers first: a mismatch is refused before gigabytes are read.
  std::vector<FilterFileInfo> infos;
  for (const std::string& path : options.files) infos.push_back(read_filter_info(path));
  const FilterRules rules = merged_rules(options, infos);
  // The merged filter has the layers of the input with most, the sizes of
  // every input's: known before any bit array is read.
  if (options.cap != 0) {
    const auto most = std::max_element(infos.begin(), infos.end(),
                                       [](const FilterFileInfo& a, const FilterFileInfo& b) {
                                         return a.params.size() < b.params.size();
                                       });
    uint64_t bytes = 0;
    for (const FilterParams& layer : most->params) bytes += layer.bytes();
    if (bytes > options.cap) return refuse_past_cap(options, "the merged filter takes", bytes);
  }
  // One filter in memory besides the result: the output may be an input,
  // and save_filter replaces it only once the merge is complete.
  FilterFile merged = load_filter_file(options.files[0]);
  for (size_t i = 1; i < options.files.size(); ++i) {
    merge_layers(merged.layers, std::move(load_filter_file(options.files[i]).layers));
  }
  merged.rules = rules;
  save_filter_file(merged, options.output);
  std::vector<const Filter*> layers;
  for (const Filter& layer : merged.layers) layers.push_back(&layer);
  const FilterSummary state = summarize(layers);
  Console::get().info("merged " + std::to_string(options.files.size()) + " filters into " +
                      fs::printable(options.output) + ": " + format_percent(state.fill) +
                      " of bits set, " +
                      approx_keys(state.estimated_keys, "distinct keys") + ", FPR now " +
                      format_rate(state.current_fpr));
  // The file holds every key of every input, as promised; but inputs that
  // filled a layer (or a fixed filter) add up past its plan, and then every
  // job that uses the file breaks its false-positive rate: said and failed
  // here, where it happens.
  if (const std::optional<OverfullLayer> over = first_overfull_layer(merged.layers)) {
    Console::get().error(merged_past_plan_message(over->over,
                                                  "the merged filter " +
                                                      fs::printable(options.output),
                                                  merged.rules.growth ? over->index + 1 : 0,
                                                  merged.layers.size()));
    return kExitOverfull;
  }
  return 0;
}

}  // namespace

Action add_merge_command(CLI::App& app) {
  auto options = std::make_shared<MergeOptions>();
  CLI::App* sub = app.add_subcommand(
      "merge", "Combine filters built with identical parameters (bitwise OR, layer by layer for "
               "filters that grow), or the exact sets of --exact (their union), into one file");
  sub->add_option("filters", options->files, "Filter files, or set files, to merge (at least "
                                              "two)")
      ->type_name("FILTER...")
      ->required()
      ->expected(2, -1)
      ->group(kGroupInput);
  sub->add_option("-o,--output", options->output,
                  "The merged filter or set; may be one of the inputs (replaced atomically)")
      ->type_name("FILE")
      ->required()
      ->group(kGroupOutput);
  sub->add_flag("-q,--quiet", options->quiet, "No summary line on stderr")->group(kGroupOutput);
  sub->add_option("--max-memory", options->max_memory,
                  "The most bytes the merged set (or filter) may take: 4G, 512MiB (powers of "
                  "1024); past it the merge ends with exit status 4 and writes nothing. A set's "
                  "union is capped as it is made; a filter's size is known from its inputs' "
                  "headers, and checked before any is read")
      ->type_name("BYTES")
      ->group(kGroupOutput);
  sub->add_flag("--ignore-key-rules", options->ignore_key_rules,
                "Merge filters whose keys were made by different rules (key, delimiter, "
                "normalization, record separator); the result records the first one's")
      ->group(kGroupInput);
  return [options] {
    refuse_mpi_launch("merge");
    return run_merge(*options);
  };
}

}  // namespace gdedup::cli
