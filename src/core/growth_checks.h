// When a growing filter adds a layer (gdedup/layered_filter.h): only at the
// keys offered that are a multiple of rule.check_every, when the newest
// layer's insertions plus check_every exceed its capacity. Shared by the
// LayeredFilter of one process and the ranks of an MPI job, which share
// one filter and must add its layers at the same keys.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>

#include "gdedup/growth.h"

namespace gdedup::detail {

// How far the newest layer has filled.
struct NewestLayer {
  uint64_t insertions = 0;
  uint64_t capacity = 0;  // planned
};

// Whether a layer is due at a check: the newest could overfill before the
// next one.
inline bool layer_due(const GrowthRule& rule, const NewestLayer& newest) {
  return newest.insertions + rule.check_every > newest.capacity;
}

// Keys that can be offered, from `keys_offered` on, before the next check
// that could add a layer: a span of keys that no growth cuts, whatever the
// answers (insertions grow by at most one a key).
inline uint64_t keys_before_possible_growth(const GrowthRule& rule, uint64_t keys_offered,
                                            const NewestLayer& newest) {
  const uint64_t every = rule.check_every;
  const uint64_t next_check = (keys_offered / every + 1) * every;
  if (layer_due(rule, newest)) return next_check - keys_offered;
  // No check before the newest layer could hold capacity - every + 1 keys
  // can add a layer.
  const uint64_t first_possible =
      keys_offered + (newest.capacity - every - newest.insertions) + 1;
  const uint64_t check = (first_possible + every - 1) / every * every;
  return std::max(next_check, check) - keys_offered;
}

}  // namespace gdedup::detail
