// gdedup merge: the OR of filters with identical parameters, layer by layer
// (docs/CLI.md says what the result holds).
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/console.h"
#include "cli/file_locks.h"
#include "cli/interrupt.h"
#include "cli/numbers.h"
#include "cli/options.h"
#include "cli/overfull.h"
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
  bool ignore_key_rules = false;
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

// The keys offered that a merged growing filter records. Growth is decided
// when the keys offered are a multiple of check_every, and adds a layer
// once fewer than check_every keys fit in the newest: so no layer takes in
// more than planned while at most check_every keys come between two
// decisions. The inputs' sum (`rules.keys_offered`) may lie anywhere
// between decisions while the merged newest layer holds the keys of every
// input; when the keys before the next decision could overfill it, the sum
// is rounded up to a multiple, so that the merged filter decides at its
// first key. Otherwise the sum stands, so that merging the halves of one
// filter's keys still gives that filter's bytes.
uint64_t keys_offered_for_growth(const FilterRules& rules,
                                 const std::vector<FilterFileInfo>& infos) {
  size_t layers = 0;
  for (const FilterFileInfo& info : infos) layers = std::max(layers, info.params.size());
  uint64_t newest_insertions = 0;
  uint64_t newest_capacity = 0;
  for (const FilterFileInfo& info : infos) {
    if (info.counters.size() < layers) continue;
    newest_insertions += info.counters[layers - 1].insertions;
    newest_capacity = info.counters[layers - 1].planned_capacity;
  }
  const uint64_t every = rules.growth->check_every;
  const uint64_t next_decision = (rules.keys_offered / every + 1) * every;
  if (newest_insertions + (next_decision - rules.keys_offered) <= newest_capacity) {
    return rules.keys_offered;
  }
  return (rules.keys_offered + every - 1) / every * every;
}

// The rules of the merged filter: those of the inputs, which must agree.
// Inputs merge layer by layer, so they must grow by one rule (or all be
// fixed) and have layers of identical parameters where both have one; key
// rules must be equal where recorded (unless ignored), and an input that
// records none takes the others'. Throws UsageError naming the two inputs.
FilterRules merged_rules(const MergeOptions& options, const std::vector<FilterFileInfo>& infos) {
  const std::vector<std::string>& files = options.files;
  FilterRules rules = infos[0].rules;
  for (size_t i = 1; i < infos.size(); ++i) {
    auto refuse = [&](const std::string& why) {
      throw UsageError("cannot merge " + files[0] + " and " + files[i] + ": " + why);
    };
    const FilterRules& other = infos[i].rules;
    if (rules.growth.has_value() != other.growth.has_value()) {
      refuse(std::string("one grows and the other is fixed (") +
             (rules.growth ? files[0] : files[i]) +
             " grows); only filters that grow by one rule, or fixed ones, can be merged");
    }
    if (rules.growth && *rules.growth != *other.growth) {
      refuse("they grow by different rules (see gdedup info); only filters that grow by one "
             "rule can be merged layer by layer");
    }
    const size_t common = std::min(infos[0].params.size(), infos[i].params.size());
    for (size_t j = 0; j < common; ++j) {
      const std::string diff =
          difference(infos[0].params[j], files[0], infos[i].params[j], files[i]);
      if (diff.empty()) continue;
      refuse((infos[0].params.size() > 1 ? "layer " + std::to_string(j + 1) + " has " : "") +
             diff + "; only filters with identical parameters can be merged");
    }
    if (rules.keys && other.keys && *rules.keys != *other.keys && !options.ignore_key_rules) {
      refuse("their keys were made by different rules (" + rules.keys->to_string() + " in " +
             files[0] + ", " + other.keys->to_string() + " in " + files[i] +
             "); rebuild one with the other's rules, or add --ignore-key-rules to merge them "
             "anyway");
    }
    if (!rules.keys && other.keys) rules.keys = other.keys;
    rules.keys_offered += other.keys_offered;
  }
  if (rules.growth) rules.keys_offered = keys_offered_for_growth(rules, infos);
  for (size_t i = 0; i < infos.size(); ++i) {
    if (!infos[i].rules.keys) {
      Console::get().info("note: " + files[i] + " does not record its key rules (" +
                          key_rules_text(infos[i].rules, infos[i].version) + ")");
    }
  }
  return rules;
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
  const FilterRules rules = merged_rules(options, infos);
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
  const FilterState state = filter_state(layers);
  Console::get().info("merged " + std::to_string(options.files.size()) + " filters into " +
                      options.output + ": " + format_percent(state.fill) + " of bits set, " +
                      approx_keys(state.estimated_keys, "distinct keys") + ", FPR now " +
                      format_rate(state.current_fpr));
  // The file holds every key of every input, as promised; but inputs that
  // filled a layer (or a fixed filter) add up past its plan, and then every
  // job that uses the file breaks its false-positive rate: said and failed
  // here, where it happens.
  for (size_t i = 0; i < merged.layers.size(); ++i) {
    if (const std::optional<Overfull> over = check_overfull(merged.layers[i])) {
      Console::get().error(merged_past_plan_message(*over, "the merged filter " + options.output,
                                                    merged.rules.growth ? i + 1 : 0,
                                                    merged.layers.size(), std::nullopt));
      return kExitOverfull;
    }
  }
  return 0;
}

}  // namespace

Action add_merge_command(CLI::App& app) {
  auto options = std::make_shared<MergeOptions>();
  CLI::App* sub = app.add_subcommand(
      "merge", "Combine filters built with identical parameters (bitwise OR, layer by layer for "
               "filters that grow) into one file");
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
  sub->add_flag("--ignore-key-rules", options->ignore_key_rules,
                "Merge filters whose keys were made by different rules (key, delimiter, "
                "normalization, record separator); the result records the first one's")
      ->group(kGroupInput);
  return [options] { return run_merge(*options); };
}

}  // namespace gdedup::cli
