// What `gdedup merge` and the Python package's Filter.merge decide alike
// (docs/FORMAT.md, "Merging"): whether filters can be merged and with which
// rules, and whether a merged layer ended far past its plan. merge_layers
// (filter_file.h) does the OR itself.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gdedup/filter.h"
#include "gdedup/filter_file.h"

namespace gdedup {

// The rules of the filter merged from filters with these headers, oldest
// layers first, named in messages by `names` (their files, or "this
// filter"). Inputs merge layer by layer, so they must grow by one rule (or
// all be fixed) and have layers of identical parameters where both have
// one; key rules must be equal where recorded (unless `ignore_key_rules`),
// and an input that records none takes the others'. keys_offered is the
// inputs' sum, rounded up to the next growth decision when the merged
// newest layer could otherwise take in more than planned before it. Throws
// UsageError naming the two inputs and what differs.
FilterRules merged_rules(const std::vector<FilterFileInfo>& inputs,
                         const std::vector<std::string>& names, bool ignore_key_rules);

// "Far past": more keys than planned and a false-positive rate above this
// many times the planned one.
inline constexpr double kOverfullFactor = 10;

// A filter (or layer) far past its plan: the promise of a lost key only now
// and then no longer holds.
struct Overfull {
  uint64_t planned = 0;        // the capacity the filter was planned for
  uint64_t keys = 0;           // keys counted new (its insertions)
  double fpr_now = 0;
  double planned_fpr = 0;
  uint64_t probably_lost = 0;  // new keys taken for ones already present
  uint64_t capacity = 0;       // a capacity that would have served
};

// Set when `filter` holds more keys than planned and its rate is more than
// kOverfullFactor times the planned one; nullopt otherwise, and for filters
// whose plan is unknown.
std::optional<Overfull> check_overfull(const Filter& filter);
// The same for a filter of `params` and `counters` with `set_bits` bits set
// (one whose bits are spread over the ranks of an MPI job).
std::optional<Overfull> check_overfull(const FilterParams& params, const FilterCounters& counters,
                                       uint64_t set_bits);

// The first of `layers` (oldest first) that check_overfull finds far past
// its plan, with its index; nullopt when none is. A merge of filters whose
// layers were full adds their keys up past the plan: a layer before the
// newest never takes in more than planned by itself, and none can grow.
struct OverfullLayer {
  size_t index = 0;
  Overfull over;
};
std::optional<OverfullLayer> first_overfull_layer(const std::vector<Filter>& layers);

}  // namespace gdedup
