// Filters that grow: the schedule of layers a growing filter adds as keys
// arrive (the scalable Bloom filter of Almeida et al. 2007). Layer i is
// planned for first_capacity * growth^i keys at the rate
// target_fpr * (1 - tightening) * tightening^i, so the rates sum to less
// than target_fpr however many layers there are, and so does the compound
// rate 1 - prod(1 - rate_i) of a query that is false in any layer.
#pragma once

#include <cstdint>
#include <vector>

#include "gdedup/planner.h"

namespace gdedup {

// The layer capacities double (or more) per layer: 64 layers would exceed
// any 64-bit count of keys. Files refuse more.
inline constexpr uint32_t kMaxLayers = 64;

// The tightening for a first layer planned for the keys expected (a count
// given, or the records estimated in the input): growth is then the
// exception. Memory against one right-sized filter at 1e-4, the mean over
// 1e6, 1e7, 1e8 and 1e9 keys, by the first layer's capacity as a fraction of
// the keys: 2: 2.17x at 0.5, 2.50x at 0.85; 1: 1.09x, 1.25x; 0.5: 1.72x,
// 1.90x; 0.25: 2.14x, 2.25x; 0.1: 1.96x both. 0.5 is the better down to a
// tenth of the keys (the same at 1e-2 and 1e-6); below that 0.85 is.
inline constexpr double kSizedTightening = 0.5;

struct GrowthRule {
  // Keys the first layer is planned for. From 2^19 (1.8 MiB at 1e-4) the
  // memory against one right-sized filter over 1e6..1e9 keys is 1.96x
  // (geometric mean; 2.03x from 2^16, 1.97x from 2^18, 1.99x from 2^20) with
  // 6.5 layers on average instead of 9.4 from 2^16: fewer layers for each new
  // key to be looked up in.
  uint64_t first_capacity = uint64_t{1} << 19;
  double target_fpr = 1e-4;
  uint32_t growth = 2;        // each layer plans for this many times the previous one's keys
  // Each layer's rate is this times the previous one's. Memory against one
  // right-sized filter, from a 65,536-key first layer at 1e-4, at 1e6, 1e8,
  // 1e9 and 1e12 keys: 0.5: 2.86, 2.99, 3.03, 6.31x; 0.7: 2.68, 2.24, 2.03,
  // 3.11x; 0.85: 2.70, 1.99, 1.68, 2.07x; 0.9: 2.77, 1.96, 1.63, 1.88x.
  // 0.85 is within 10% of the best of these everywhere from 1e6 to 1e12
  // (the same holds at 1e-2 and 1e-6).
  double tightening = 0.85;
  uint32_t block_bits = 0;    // 0: the planner chooses per layer
  // Growth is decided only when the keys offered so far are a multiple of
  // this (docs/FORMAT.md): never inside a span of keys, so batch sizes,
  // threads, backends and resumes cannot move the point a layer is added.
  uint64_t check_every = 1024;

  // Throws UsageError naming the bad field.
  void validate() const;
  bool operator==(const GrowthRule& o) const {
    return first_capacity == o.first_capacity && target_fpr == o.target_fpr &&
           growth == o.growth && tightening == o.tightening && block_bits == o.block_bits &&
           check_every == o.check_every;
  }
  bool operator!=(const GrowthRule& o) const { return !(*this == o); }
};

// The rule of a new growing filter: planned for `expected_keys` distinct
// keys at `target_fpr` (the first layer holds them, at least check_every,
// with kSizedTightening so that growth is the exception), or, when
// expected_keys is 0 (unknown), from the default small first layer. The
// command's --capacity and the Python Filter(capacity=) both mean this.
GrowthRule growth_rule_for(uint64_t expected_keys, double target_fpr, uint32_t block_bits = 0);

// The plan of layer `index` (0 is the first). Throws UsageError when the
// layer would exceed the planner's limits.
Plan plan_layer(const GrowthRule& rule, uint32_t index);

// A growing filter after `keys` distinct keys, each layer filled to its
// capacity before the next is added.
struct GrowthPoint {
  uint64_t keys = 0;
  uint32_t layers = 0;
  uint64_t bytes = 0;
  double fpr = 0;  // compound false-positive rate of a query
};
// One point per entry of `keys` (ascending), each layer planned once.
std::vector<GrowthPoint> growth_at(const GrowthRule& rule, const std::vector<uint64_t>& keys);

// The compound rate of layers that each give a false positive with
// probability rates[i], independently: 1 - prod(1 - rates[i]).
double compound_fpr(const double* rates, uint64_t count);

}  // namespace gdedup
