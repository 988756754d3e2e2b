#include "gdedup/growth.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "gdedup/error.h"

namespace gdedup {
namespace {

uint64_t layer_capacity(const GrowthRule& rule, uint32_t index) {
  uint64_t capacity = rule.first_capacity;
  for (uint32_t i = 0; i < index; ++i) {
    if (capacity > UINT64_MAX / rule.growth) {
      throw UsageError("layer " + std::to_string(index + 1) +
                       " of a growing filter would plan for more than 2^64 keys");
    }
    capacity *= rule.growth;
  }
  return capacity;
}

// Multiplied out one layer at a time (not pow) so that every build computes
// the same bits.
double layer_rate(const GrowthRule& rule, uint32_t index) {
  double rate = rule.target_fpr * (1.0 - rule.tightening);
  for (uint32_t i = 0; i < index; ++i) rate *= rule.tightening;
  return rate;
}

}  // namespace

GrowthRule growth_rule_for(uint64_t expected_keys, double target_fpr, uint32_t block_bits) {
  GrowthRule rule;
  // A first layer below the growth check interval could fill before the
  // first check.
  if (expected_keys != 0) {
    rule.first_capacity = std::max(expected_keys, rule.check_every);
    rule.tightening = kSizedTightening;
  }
  rule.target_fpr = target_fpr;
  rule.block_bits = block_bits;
  return rule;
}

void GrowthRule::validate() const {
  if (first_capacity == 0) {
    throw UsageError("the first layer of a growing filter needs a capacity of at least 1 key");
  }
  if (!(target_fpr > 0.0 && target_fpr < 1.0)) {
    throw UsageError("false-positive rate " + std::to_string(target_fpr) +
                     " is out of range; it must be above 0 and below 1 (e.g. 1e-4)");
  }
  if (growth < 2) {
    throw UsageError("growth factor " + std::to_string(growth) +
                     " is too small; each layer must plan for at least 2 times the keys of the "
                     "one before");
  }
  if (!(tightening > 0.0 && tightening < 1.0)) {
    throw UsageError("tightening ratio " + std::to_string(tightening) +
                     " is out of range; it must be above 0 and below 1 (e.g. 0.8)");
  }
  if (check_every == 0) throw UsageError("growth must be checked every 1 key or more, not 0");
  if (first_capacity < check_every) {
    throw UsageError("the first layer's capacity " + std::to_string(first_capacity) +
                     " is below the " + std::to_string(check_every) +
                     " keys between two growth checks");
  }
}

Plan plan_layer(const GrowthRule& rule, uint32_t index) {
  if (index >= kMaxLayers) {
    throw UsageError("a growing filter has at most " + std::to_string(kMaxLayers) +
                     " layers; layer " + std::to_string(index + 1) + " was asked for");
  }
  const uint64_t capacity = layer_capacity(rule, index);
  const double rate = layer_rate(rule, index);
  // A layer's plan depends on these three alone, and the exact-FPR search
  // costs about a millisecond: each is planned once per process, however
  // many filters (benchmark runs, a binding's filters) grow through it.
  using Key = std::tuple<uint64_t, double, uint32_t>;
  static std::mutex mutex;
  static std::map<Key, Plan> plans;
  const Key key{capacity, rate, rule.block_bits};
  {
    const std::lock_guard<std::mutex> lock(mutex);
    if (const auto found = plans.find(key); found != plans.end()) return found->second;
  }
  const Plan plan = plan_for_capacity(capacity, rate, rule.block_bits);
  const std::lock_guard<std::mutex> lock(mutex);
  // Rules are few in a process; the bound only keeps a pathological caller
  // from growing the map without end.
  if (plans.size() >= 4096) plans.clear();
  plans.emplace(key, plan);
  return plan;
}

double compound_fpr(const double* rates, uint64_t count) {
  double pass = 1.0;
  for (uint64_t i = 0; i < count; ++i) pass *= 1.0 - rates[i];
  return 1.0 - pass;
}

std::vector<GrowthPoint> growth_at(const GrowthRule& rule, const std::vector<uint64_t>& keys) {
  rule.validate();
  std::vector<Plan> layers;
  std::vector<GrowthPoint> points;
  std::vector<double> rates;
  for (const uint64_t n : keys) {
    GrowthPoint point;
    point.keys = n;
    rates.clear();
    uint64_t left = n;
    do {
      if (point.layers == layers.size()) layers.push_back(plan_layer(rule, point.layers));
      const Plan& plan = layers[point.layers++];
      const uint64_t in_layer = std::min(left, plan.capacity);
      left -= in_layer;
      point.bytes += plan.bytes();
      rates.push_back(expected_fpr(plan.layout, plan.num_blocks, in_layer));
    } while (left > 0);
    point.fpr = compound_fpr(rates.data(), rates.size());
    points.push_back(point);
  }
  return points;
}

}  // namespace gdedup
