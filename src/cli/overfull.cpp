#include "cli/overfull.h"

#include "cli/numbers.h"

namespace gdedup::cli {
namespace {

// The end of the sentence on the keys lost, by what the mode writes.
const char* lost_keys(Mode mode) {
  switch (mode) {
    case Mode::kDedup: return " unique records were probably dropped as duplicates.";
    case Mode::kDuplicates: return " unique records were probably written as duplicates.";
    default: return " new keys were probably counted as present already.";
  }
}

// The keys probably lost, as the message says them: an estimate that
// rounds to none still follows a rate far past the plan, so it says some.
std::string lost_text(uint64_t lost) {
  return lost == 0 ? "some" : "about " + group_digits(lost);
}

std::string layers_text(size_t layers) {
  return std::to_string(layers) + (layers == 1 ? " layer" : " layers");
}

}  // namespace

std::string overfull_message(const Overfull& over, Mode mode, bool existing_filter) {
  std::string text = "the filter ended far past its plan: planned for " +
                     group_digits(over.planned) + " distinct keys, it took in about " +
                     group_digits(over.keys + over.probably_lost) +
                     ", so its false-positive rate is now " + format_rate(over.fpr_now) +
                     " (planned " + format_rate(over.planned_fpr) + ") and " +
                     lost_text(over.probably_lost);
  if (existing_filter) {
    // Its counts cover every job that ever added to it.
    return text + " of the keys offered to it over its life were probably taken for ones "
                  "already present. Start a new filter file with --capacity " +
           std::to_string(over.capacity) + " (or more).";
  }
  return text + lost_keys(mode) + " Run the job again with --capacity " +
         std::to_string(over.capacity) + " (or more).";
}

std::string merged_past_plan_message(const Overfull& over, const std::string& what, size_t layer,
                                     size_t layers, std::optional<Mode> mode) {
  const std::string part = layer == 0 ? what
                                      : "layer " + std::to_string(layer) + " of the " +
                                            layers_text(layers) + " of " + what;
  const std::string effect =
      mode ? std::string(" and some") + lost_keys(*mode)
           : "; jobs that use it will take new keys for ones already present that much more "
             "often.";
  return part + " is far past its plan: planned for " + group_digits(over.planned) +
         " distinct keys, it holds about " + group_digits(over.keys + over.probably_lost) +
         " (a merge adds up the keys of its inputs, which were full), so its false-positive "
         "rate is " + format_rate(over.fpr_now) + " (planned " + format_rate(over.planned_fpr) +
         ")" + effect + " Build one filter from the inputs of the merged filters instead of "
         "merging them.";
}

std::string growth_limit_message(const Overfull& over, Mode mode, const std::string& max_memory,
                                 size_t layers) {
  const std::string held = max_memory.empty()
                               ? "the filter was held at its " + layers_text(layers) +
                                     " by --no-grow"
                               : "the filter reached --max-memory " + max_memory + " at " +
                                     layers_text(layers) + " and could not grow further";
  return held + ": its newest layer, planned for " +
         group_digits(over.planned) + " distinct keys, took in about " +
         group_digits(over.keys + over.probably_lost) + ", so its false-positive rate is now " +
         format_rate(over.fpr_now) + " (planned " + format_rate(over.planned_fpr) +
         ") and " + lost_text(over.probably_lost) + lost_keys(mode) +
         (max_memory.empty() ? " Run the job again without --no-grow."
                             : " Run the job again with a larger --max-memory, or without it.");
}

}  // namespace gdedup::cli
