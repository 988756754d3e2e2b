#include "cli/overfull.h"

#include <algorithm>
#include <cmath>

#include "cli/numbers.h"
#include "gdedup/planner.h"

namespace gdedup::cli {
namespace {

// A key found present is left as it was, and one found new is set: either
// way its bits end up set, so the filter's fill is that of every distinct
// key it was offered. Those beyond the keys counted new were lost. When the
// fill is too high to tell (every bit set), the loss is what the planned
// rates imply for the keys counted new: taking them one at a time, a new
// key gets through with probability 1 - f(n) with n keys in, so the keys
// lost on the way to `keys` are the integral of f / (1 - f) (trapezoids
// over 256 steps, f capped below 1): a lower bound.
double probably_lost(const Filter& filter, uint64_t keys) {
  const double offered = filter.estimated_keys();
  if (std::isfinite(offered)) return std::max(0.0, offered - static_cast<double>(keys));
  constexpr int kSteps = 256;
  const FilterParams& params = filter.params();
  auto lost_rate = [&](double n) {
    const double f = std::min(0.999, expected_fpr(params.layout, params.num_blocks,
                                                  static_cast<uint64_t>(n)));
    return f / (1 - f);
  };
  const double step = static_cast<double>(keys) / kSteps;
  double lost = 0;
  for (int i = 0; i < kSteps; ++i) {
    lost += step * (lost_rate(step * i) + lost_rate(step * (i + 1))) / 2;
  }
  return lost;
}

// Up to two significant digits: 2,206,600 -> 2,300,000.
uint64_t round_up_2_digits(double value) {
  if (value < 100) return static_cast<uint64_t>(std::ceil(value));
  const double unit = std::pow(10.0, std::floor(std::log10(value)) - 1);
  return static_cast<uint64_t>(std::ceil(value / unit) * unit);
}

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

std::optional<Overfull> check_overfull(const Filter& filter) {
  const FilterCounters& c = filter.counters();
  if (c.planned_capacity == 0 || c.planned_fpr <= 0 || c.insertions <= c.planned_capacity) {
    return std::nullopt;
  }
  const double fpr_now = filter.current_fpr();
  if (!(fpr_now > kOverfullFactor * c.planned_fpr)) return std::nullopt;
  Overfull o;
  o.planned = c.planned_capacity;
  o.keys = c.insertions;
  o.fpr_now = fpr_now;
  o.planned_fpr = c.planned_fpr;
  o.probably_lost = static_cast<uint64_t>(std::llround(probably_lost(filter, o.keys)));
  // The distinct keys seen, and a quarter more for the input to grow.
  o.capacity = round_up_2_digits(1.25 * static_cast<double>(o.keys + o.probably_lost));
  return o;
}

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
