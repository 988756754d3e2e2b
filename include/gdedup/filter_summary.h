// What a filter holds, in the numbers `gdedup info` prints and Python's
// Filter.info() returns: its sizes, counters, fill and rates, for one layer
// or for a growing filter's layers as one (sizes and counts added, rates
// compounded: a query tests every layer).
#pragma once

#include <cstdint>
#include <vector>

#include "gdedup/filter.h"
#include "gdedup/layered_filter.h"

namespace gdedup {

struct FilterSummary {
  uint64_t layers = 1;
  uint64_t blocks = 0;
  uint64_t bytes = 0;
  uint64_t set_bits = 0;
  uint64_t total_bits = 0;
  double fill = 0;            // set_bits / total_bits
  double estimated_keys = 0;  // from the fill; infinite when every bit is set
  double current_fpr = 0;     // from the fill
  // The planner's rate for the keys inserted: what current_fpr should be
  // close to.
  double expected_fpr = 0;
  uint64_t insertions = 0;
  uint64_t planned_capacity = 0;
  // The rate a query sees once every layer holds the keys it was planned for.
  double planned_fpr = 0;
};

// Counts the set bits: reads the whole bit array.
FilterSummary summarize(const Filter& filter);
// The same for a filter of `params` and `counters` whose `set_bits` were
// counted elsewhere (spread over the ranks of an MPI job).
FilterSummary summarize(const FilterParams& params, const FilterCounters& counters,
                        uint64_t set_bits);
// The layers as one; one layer is its own summary (compounding a single
// rate could round it).
FilterSummary combine(const std::vector<FilterSummary>& layers);
FilterSummary summarize(const std::vector<const Filter*>& layers);
FilterSummary summarize(const LayeredFilter& filter);

}  // namespace gdedup
