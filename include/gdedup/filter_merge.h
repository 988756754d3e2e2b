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
  // The fill is too near 100% to tell how many keys went in: probably_lost
  // is then what the fewest keys that fill allows imply, a lower bound.
  bool lost_at_least = false;
  uint64_t capacity = 0;       // a capacity that would have served
};

// The keys offered to a filter that were not counted new, where the caller
// knows them (a job: the records it read less those whose keys were new).
// They bound the keys lost from above, so they size the capacity advice
// when the fill cannot.
inline constexpr uint64_t kUnknownKeys = UINT64_MAX;

// Set when `filter` holds more keys than planned and its rate is more than
// kOverfullFactor times the planned one; nullopt otherwise, and for filters
// whose plan is unknown.
std::optional<Overfull> check_overfull(const Filter& filter,
                                       uint64_t uncounted_keys = kUnknownKeys);
// The same for a filter of `params` and `counters` with `set_bits` bits set
// (one whose bits are spread over the ranks of an MPI job).
std::optional<Overfull> check_overfull(const FilterParams& params, const FilterCounters& counters,
                                       uint64_t set_bits,
                                       uint64_t uncounted_keys = kUnknownKeys);

// The keys an overfull filter took in and those it probably lost, as
// messages say them: "about 1,234" or "at least 1,234" (and "some" for a
// loss that rounds to none, since the rate is still far past the plan).
std::string keys_taken_text(const Overfull& over);
std::string keys_lost_text(const Overfull& over);

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
