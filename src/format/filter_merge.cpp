#include "gdedup/filter_merge.h"

#include <algorithm>
#include <cmath>

#include "gdedup/error.h"
#include "gdedup/frontend/number_text.h"
#include "gdedup/planner.h"

namespace gdedup {
namespace {

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

// The keys lost on the way to `keys` counted new, as the planner's model
// expects: with n keys in, a new key gets through with probability
// 1 - f(n), so the keys lost are the integral of f / (1 - f) over the keys
// counted new (trapezoids over 256 steps). While f stays well below 1 this
// is far steadier than a count from the fill, whose chance variation (the
// square root of the clear bits) can be larger than the whole loss.
double lost_by_model(const FilterParams& params, uint64_t keys) {
  constexpr int kSteps = 256;
  auto lost_rate = [&](double n) {
    const double f = expected_fpr(params.layout, params.num_blocks, static_cast<uint64_t>(n));
    return f / (1 - f);
  };
  const double step = static_cast<double>(keys) / kSteps;
  double lost = 0;
  for (int i = 0; i < kSteps; ++i) {
    lost += step * (lost_rate(step * i) + lost_rate(step * (i + 1))) / 2;
  }
  return lost;
}

// Past this rate at the keys counted new, the model's loss is no longer
// steady (f / (1 - f) grows without bound), and the fill tells the keys.
constexpr double kModelRate = 0.25;

// A key found present is left as it was, and one found new is set: either
// way its bits end up set, so the fill is that of every distinct key the
// filter was offered, and those beyond the keys counted new were lost. The
// clear bits vary by about their square root from one input to the next;
// near 100% fill a few clear bits more or less change the count manyfold,
// and with none clear it is infinite. Then the count from clear bits two
// deviations above those seen (the fewest keys this fill allows) is the
// figure, as a lower bound.
struct Lost {
  double keys = 0;
  bool at_least = false;
};
Lost lost_keys(const FilterParams& params, uint64_t set_bits, uint64_t keys) {
  if (expected_fpr(params.layout, params.num_blocks, keys) <= kModelRate) {
    return {lost_by_model(params, keys), false};
  }
  const double clear =
      static_cast<double>(params.words()) * kWordBits - static_cast<double>(set_bits);
  const double central = estimated_keys_at_clear(params, clear);
  const double fewest = estimated_keys_at_clear(params, clear + 2 * std::sqrt(clear) + 2);
  const bool at_least = !(std::isfinite(central) && fewest >= 0.9 * central);
  const double offered = at_least ? fewest : central;
  return {std::max(0.0, offered - static_cast<double>(keys)), at_least};
}

// Up to two significant digits: 2,206,600 -> 2,300,000.
uint64_t round_up_2_digits(double value) {
  if (value < 100) return static_cast<uint64_t>(std::ceil(value));
  const double unit = std::pow(10.0, std::floor(std::log10(value)) - 1);
  return static_cast<uint64_t>(std::ceil(value / unit) * unit);
}

}  // namespace

FilterRules merged_rules(const std::vector<FilterFileInfo>& infos,
                         const std::vector<std::string>& names, bool ignore_key_rules) {
  FilterRules rules = infos[0].rules;
  for (size_t i = 1; i < infos.size(); ++i) {
    auto refuse = [&](const std::string& why) {
      throw UsageError("cannot merge " + names[0] + " and " + names[i] + ": " + why);
    };
    const FilterRules& other = infos[i].rules;
    if (rules.growth.has_value() != other.growth.has_value()) {
      refuse(std::string("one grows and the other is fixed (") +
             (rules.growth ? names[0] : names[i]) +
             " grows); only filters that grow by one rule, or fixed ones, can be merged");
    }
    if (rules.growth && *rules.growth != *other.growth) {
      refuse("they grow by different rules (see gdedup info); only filters that grow by one "
             "rule can be merged layer by layer");
    }
    const size_t common = std::min(infos[0].params.size(), infos[i].params.size());
    for (size_t j = 0; j < common; ++j) {
      const std::string diff =
          difference(infos[0].params[j], names[0], infos[i].params[j], names[i]);
      if (diff.empty()) continue;
      refuse((infos[0].params.size() > 1 ? "layer " + std::to_string(j + 1) + " has " : "") +
             diff + "; only filters with identical parameters can be merged");
    }
    if (rules.keys && other.keys && *rules.keys != *other.keys && !ignore_key_rules) {
      throw UsageError("cannot merge " + names[0] + " and " + names[i] +
                           ": their keys were made by different rules (" +
                           rules.keys->to_string() + " in " + names[0] + ", " +
                           other.keys->to_string() + " in " + names[i] +
                           "); rebuild one with the other's rules",
                       ErrorKind::key_rules_mismatch);
    }
    if (!rules.keys && other.keys) rules.keys = other.keys;
    rules.keys_offered += other.keys_offered;
  }
  if (rules.growth) rules.keys_offered = keys_offered_for_growth(rules, infos);
  return rules;
}

std::optional<Overfull> check_overfull(const Filter& filter, uint64_t uncounted_keys) {
  const FilterCounters& c = filter.counters();
  if (c.planned_capacity == 0 || c.planned_fpr <= 0 || c.insertions <= c.planned_capacity) {
    return std::nullopt;  // before the bits are counted: the common case costs nothing
  }
  return check_overfull(filter.params(), c, filter.count_set_bits(), uncounted_keys);
}

std::optional<Overfull> check_overfull(const FilterParams& params, const FilterCounters& c,
                                       uint64_t set_bits, uint64_t uncounted_keys) {
  if (c.planned_capacity == 0 || c.planned_fpr <= 0 || c.insertions <= c.planned_capacity) {
    return std::nullopt;
  }
  const double fpr_now = fpr_at_fill(params, set_bits);
  if (!(fpr_now > kOverfullFactor * c.planned_fpr)) return std::nullopt;
  Overfull o;
  o.planned = c.planned_capacity;
  o.keys = c.insertions;
  o.fpr_now = fpr_now;
  o.planned_fpr = c.planned_fpr;
  const Lost lost = lost_keys(params, set_bits, o.keys);
  o.probably_lost = static_cast<uint64_t>(std::llround(lost.keys));
  o.lost_at_least = lost.at_least;
  // The distinct keys seen, and a quarter more for the input to grow; where
  // the fill cannot tell them, every key offered that was not counted new.
  const double seen = static_cast<double>(o.keys) +
                      (lost.at_least && uncounted_keys != kUnknownKeys
                           ? static_cast<double>(std::max(uncounted_keys, o.probably_lost))
                           : static_cast<double>(o.probably_lost));
  o.capacity = round_up_2_digits(1.25 * seen);
  return o;
}

std::string keys_taken_text(const Overfull& over) {
  return (over.lost_at_least ? "at least " : "about ") +
         group_digits(over.keys + over.probably_lost);
}

std::string keys_lost_text(const Overfull& over) {
  if (over.lost_at_least) return "at least " + group_digits(over.probably_lost);
  return over.probably_lost == 0 ? "some" : "about " + group_digits(over.probably_lost);
}

std::optional<OverfullLayer> first_overfull_layer(const std::vector<Filter>& layers) {
  for (size_t i = 0; i < layers.size(); ++i) {
    if (const std::optional<Overfull> over = check_overfull(layers[i])) {
      return OverfullLayer{i, *over};
    }
  }
  return std::nullopt;
}

}  // namespace gdedup
