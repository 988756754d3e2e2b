// A merge (gdedup/merge_job.h): the OR of filters with identical
// parameters, layer by layer, or the union of exact sets. Every check is
// made before anything is written, and the output is replaced only once the
// merge is complete.
#include "gdedup/merge_job.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "gdedup/error.h"
#include "gdedup/filter_file.h"
#include "gdedup/frontend/filter_report.h"
#include "gdedup/frontend/job_files.h"
#include "gdedup/frontend/number_text.h"
#include "gdedup/frontend/path_text.h"
#include "gdedup/frontend/paths.h"
#include "gdedup/key_set.h"
#include "gdedup/set_file.h"

namespace gdedup {
namespace {

// The merged filter or set would take more than max_memory: nothing is
// written (an existing output is as it was). `what` says what takes how
// much.
MergeResult past_cap(const MergeSpec& spec, const JobEvents& events, const std::string& what,
                     uint64_t bytes) {
  MergeResult result;
  result.status = MergeStatus::kPastMaxMemory;
  result.inputs = spec.inputs.size();
  result.message = "cannot merge into " + fs::printable(spec.output) + ": " + what + " " +
                   human_bytes(bytes) + " (" + group_digits(bytes) + " bytes), more than " +
                   events.given(JobOption::kMaxMemory) + " allows; nothing was written; a "
                   "larger " + events.name(JobOption::kMaxMemory) + " lets the merge go on";
  return result;
}

// The output replaces a file only if that file is one of the inputs or
// another file of their kind (filter, or set): a typo (-o urls.txt) must not
// destroy a file of another kind. Throws UsageError naming it.
void check_replaced_file(const MergeSpec& spec, bool sets) {
  if (!file_exists(spec.output)) return;
  const WrittenFile output{spec.output, "output", false};
  try {
    check_written_files({output}, spec.inputs);
  } catch (const UsageError&) {
    return;  // one of the inputs: replaced once the merge is complete
  }
  const std::string what = sets ? "set" : "filter";
  try {
    if (sets) {
      read_set_info(spec.output);
    } else {
      read_filter_info(spec.output);
    }
  } catch (const Error&) {
    throw UsageError("output " + fs::printable(spec.output) + " exists and is not a "
                     "readable gdedup " + what + " file, and merge would replace it with the "
                     "merged " + what + "; name a new file, a " + what + " or one of the "
                     "inputs (nothing was done)");
  }
}

bool is_exact_set(const std::string& path) { return is_set_file(path) || is_set_checkpoint(path); }

// True when the inputs are sets; throws UsageError (other_mode) naming a set
// and a Bloom filter when they are mixed (and read_filter_info's Error for an
// input of neither kind).
bool inputs_are_sets(const MergeSpec& spec, const JobEvents& events) {
  const std::vector<std::string>& files = spec.inputs;
  const auto set = std::find_if(files.begin(), files.end(), is_exact_set);
  if (set == files.end()) return false;
  const auto other = std::find_if_not(files.begin(), files.end(), is_exact_set);
  if (other == files.end()) return true;
  read_filter_info(*other);  // a file of neither kind is refused as what it is
  throw UsageError("cannot merge " + fs::printable(*set) + " and " + fs::printable(*other) +
                       ": " + fs::printable(*set) + " is an exact set (written with " +
                       events.name(JobOption::kExact) + ") and " + fs::printable(*other) +
                       " a Bloom filter; a set and a Bloom filter cannot be merged, and a Bloom "
                       "filter cannot become a set",
                   ErrorKind::other_mode);
}

// The union of sets whose keys were made by the same rules (a hash seed of
// its own would make other keys, so it is never ignored). Headers and rules
// of every input are checked before any keys are read; then their keys
// stream into one set, within max_memory.
MergeResult merge_sets(const MergeSpec& spec, const JobEvents& events) {
  const std::vector<std::string>& files = spec.inputs;
  std::vector<SetFileInfo> infos;
  for (const std::string& path : files) infos.push_back(read_set_info(path));
  for (size_t i = 1; i < files.size(); ++i) {
    const KeyRules& first = infos[0].rules;
    const KeyRules& other = infos[i].rules;
    if (first != other && (!spec.ignore_key_rules || first.seed != other.seed)) {
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
  if (spec.max_memory != 0 && first_bytes > spec.max_memory) {
    return past_cap(spec, events, "the set of " + fs::printable(files[0]) + " takes",
                    first_bytes);
  }
  KeySet merged(0, KeySetOptions{1, spec.max_memory});
  merged.reserve(infos[0].keys);
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
      return past_cap(spec, events,
                      (i == 0 ? "the set of " + fs::printable(files[0])
                              : "with " + fs::printable(files[i]) + " the union") +
                          " takes at least",
                      *needed);
    }
  }
  save_set_file(merged, infos[0].rules, spec.output);
  MergeResult result;
  result.saved = true;
  result.inputs = files.size();
  result.sets = true;
  result.set = SetSummary{merged.size(), merged.bytes(), merged.load(),
                          KeySet::collision_chance(merged.size())};
  return result;
}

// The OR of filters whose headers agree (merged_rules), layer by layer.
MergeResult merge_filters(const MergeSpec& spec, JobEvents& events) {
  const std::vector<std::string>& files = spec.inputs;
  // Headers first: a mismatch is refused before gigabytes are read.
  std::vector<FilterFileInfo> infos;
  for (const std::string& path : files) infos.push_back(read_filter_info(path));
  const FilterRules rules = merged_rules(infos, files, spec.ignore_key_rules);
  for (size_t i = 0; i < infos.size(); ++i) {
    if (!infos[i].rules.keys) {
      events.info("note: " + fs::printable(files[i]) + " does not record its key rules (" +
                  key_rules_text(infos[i].rules, infos[i].version) + ")");
    }
  }
  // The merged filter has the layers of the input with most, the sizes of
  // every input's: known before any bit array is read.
  if (spec.max_memory != 0) {
    const auto most = std::max_element(infos.begin(), infos.end(),
                                       [](const FilterFileInfo& a, const FilterFileInfo& b) {
                                         return a.params.size() < b.params.size();
                                       });
    uint64_t bytes = 0;
    for (const FilterParams& layer : most->params) bytes += layer.bytes();
    if (bytes > spec.max_memory) return past_cap(spec, events, "the merged filter takes", bytes);
  }
  // One filter in memory besides the result: the output may be an input,
  // and save_filter_file replaces it only once the merge is complete.
  FilterFile merged = load_filter_file(files[0]);
  for (size_t i = 1; i < files.size(); ++i) {
    merge_layers(merged.layers, std::move(load_filter_file(files[i]).layers));
  }
  merged.rules = rules;
  save_filter_file(merged, spec.output);
  MergeResult result;
  result.saved = true;
  result.inputs = files.size();
  std::vector<const Filter*> layers;
  for (const Filter& layer : merged.layers) layers.push_back(&layer);
  result.filter = summarize(layers);
  // The file holds every key of every input, as promised; but inputs that
  // filled a layer (or a fixed filter) add up past its plan, and then every
  // job that uses the file breaks its false-positive rate: said here, where
  // it happens.
  result.overfull = first_overfull_layer(merged.layers);
  if (result.overfull) {
    result.status = MergeStatus::kOverfull;
    result.message = merged_past_plan_message(
        result.overfull->over, "the merged filter " + fs::printable(spec.output),
        merged.rules.growth ? result.overfull->index + 1 : 0, merged.layers.size());
  }
  return result;
}

// The inputs with a file given again (by another name, or the same) left
// out, each told of: a union holds each input's keys once, and a filter
// merged with itself would count its keys twice (in its growth's and its
// plan's counters) for the same bits.
std::vector<std::string> distinct_inputs(const std::vector<std::string>& inputs,
                                         JobEvents& events) {
  std::vector<std::string> kept;
  std::vector<fs::FileStatus> seen;
  for (const std::string& path : inputs) {
    fs::FileStatus status;
    if (fs::status_of_path(path, status) == 0) {
      const auto again = std::find_if(seen.begin(), seen.end(), [&](const fs::FileStatus& s) {
        return s.same_file(status);
      });
      if (again != seen.end()) {
        events.info("note: " + fs::printable(path) + " is the same file as input " +
                    fs::printable(kept[static_cast<size_t>(again - seen.begin())]) +
                    "; it is merged once");
        continue;
      }
    }
    seen.push_back(status);
    kept.push_back(path);
  }
  return kept;
}

}  // namespace

MergeResult run_merge_job(const MergeSpec& spec, JobEvents& events) {
  if (spec.inputs.size() < 2) {
    throw UsageError("a merge needs at least two inputs; " +
                     std::to_string(spec.inputs.size()) + " given");
  }
  // An empty name would pass every check of the output, and the merge
  // would fail only at its end, renaming its temporary file over nothing.
  if (spec.output.empty()) {
    throw UsageError(events.name(JobOption::kOutput) + " names no file: a merge writes the "
                     "merged filter or set to a file, so name one");
  }
  check_writable({spec.output, "output", false});
  // Held until the merge ends, taken before any input is read: a job that
  // saves this filter meanwhile is waited for, and its keys are in the
  // inputs read here when the output is one of them, never lost by the
  // rename at the end.
  const FileLocks locks = lock_job_files("", "", spec.output, events);
  MergeSpec distinct = spec;
  distinct.inputs = distinct_inputs(spec.inputs, events);
  const bool sets = inputs_are_sets(distinct, events);
  check_replaced_file(distinct, sets);
  return sets ? merge_sets(distinct, events) : merge_filters(distinct, events);
}

std::string merge_summary_line(const MergeSpec& spec, const MergeResult& result) {
  const std::string into = " into " + fs::printable(spec.output) + ": ";
  if (result.set) {
    return "merged " + counted(result.inputs, "set") + into +
           counted(result.set->keys, "distinct key") + ", collision chance " +
           format_rate(result.set->collision_chance);
  }
  return "merged " + counted(result.inputs, "filter") + into +
         format_percent(result.filter.fill) + " of bits set, " +
         approx_keys(result.filter.estimated_keys, "distinct keys") + ", FPR now " +
         format_rate(result.filter.current_fpr);
}

}  // namespace gdedup
