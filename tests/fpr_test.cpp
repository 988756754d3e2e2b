// Measured false-positive rates against the planner's promise: fill a filter
// with exactly the planned number of distinct keys, query keys never
// inserted, and compare. Enough queries are made for about 2000 expected
// false positives, so the statistical error (about 2%) is well inside the
// 10% tolerance. The planner picks (256, 8) and (512, 16); every layout of
// the format is measured too, through add and through test_and_set.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gdedup/backend.h"
#include "gdedup/filter.h"
#include "gdedup/fingerprint.h"
#include "gdedup/planner.h"

namespace gdedup {
namespace {

std::vector<uint64_t> hashed_range(uint64_t first, uint64_t count, uint64_t seed) {
  std::vector<uint64_t> keys(count);
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t key = first + i;
    keys[i] = fingerprint(&key, sizeof key, seed);
  }
  return keys;
}

struct Case {
  uint64_t capacity;
  double fpr;
  uint32_t block_bits;
};

class MeasuredFpr : public ::testing::TestWithParam<Case> {};

TEST_P(MeasuredFpr, MatchesThePlanWithin10Percent) {
  const Case c = GetParam();
  const Plan plan = plan_for_capacity(c.capacity, c.fpr, c.block_bits);
  Filter filter = Filter::from_plan(plan);
  auto backend = make_cpu_backend(filter, {2, CpuKernel::kSimd});
  const uint64_t seed = filter.params().seed;
  const auto inserted = hashed_range(0, c.capacity, seed);
  backend->add(inserted.data(), inserted.size());

  const auto queries = static_cast<uint64_t>(std::min(2e7, 2000 / plan.expected_fpr));
  const auto absent = hashed_range(uint64_t{1} << 40, queries, seed);
  std::vector<uint8_t> present(queries);
  backend->contains(absent.data(), queries, present.data());
  uint64_t positives = 0;
  for (uint8_t p : present) positives += p;
  const double measured = static_cast<double>(positives) / queries;

  std::cout << "[ fpr      ] " << plan.layout.block_bits << "-bit k=" << plan.layout.k << " n="
            << c.capacity << " planned " << plan.expected_fpr << " measured " << measured
            << " (" << positives << " of " << queries << ")\n";
  EXPECT_NEAR(measured / plan.expected_fpr, 1.0, 0.10)
      << "planned " << plan.expected_fpr << ", measured " << measured << " with "
      << plan.layout.block_bits << "-bit blocks, k = " << plan.layout.k;
  // The fill-based estimates used by `info` and the stats agree too.
  EXPECT_NEAR(filter.estimated_keys() / c.capacity, 1.0, 0.02);
  EXPECT_NEAR(filter.current_fpr() / plan.expected_fpr, 1.0, 0.10);
}

std::vector<Case> cases() {
  std::vector<Case> all;
  for (uint64_t n : {1000000ull, 10000000ull}) {
    for (double p : {1e-2, 1e-3, 1e-4}) {
      for (uint32_t bits : {256u, 512u}) all.push_back({n, p, bits});
    }
  }
  return all;
}

INSTANTIATE_TEST_SUITE_P(Planner, MeasuredFpr, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           const Case& c = info.param;
                           return "n" + std::to_string(c.capacity) + "_p1e" +
                                  std::to_string(static_cast<int>(std::lround(std::log10(c.fpr)))).substr(1) +
                                  "_b" + std::to_string(c.block_bits);
                         });

// Every layout the format defines, not only those the planner picks, and
// test_and_set as well as add: a filter of each layout sized for a 3%
// rate at a million keys (so that the rarer events below still number
// about a thousand).
class MeasuredFprOfLayout : public ::testing::TestWithParam<Layout> {};

constexpr uint64_t kLayoutKeys = 1000000;
constexpr double kLayoutFpr = 3e-2;

// The fewest blocks whose rate at `keys` is at most `fpr`.
uint64_t blocks_for(const Layout& layout, uint64_t keys, double fpr) {
  uint64_t lo = 1, hi = keys;
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (expected_fpr(layout, mid, keys) <= fpr) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

TEST_P(MeasuredFprOfLayout, AddThenContainsMatchesThePlan) {
  const Layout layout = GetParam();
  Filter filter(FilterParams{blocks_for(layout, kLayoutKeys, kLayoutFpr), layout, kDefaultSeed});
  auto backend = make_cpu_backend(filter, {2, CpuKernel::kSimd});
  const auto inserted = hashed_range(0, kLayoutKeys, kDefaultSeed);
  backend->add(inserted.data(), inserted.size());
  const double planned = expected_fpr(layout, filter.params().num_blocks, kLayoutKeys);
  const auto queries = static_cast<uint64_t>(2000 / planned);
  const auto absent = hashed_range(uint64_t{1} << 40, queries, kDefaultSeed);
  std::vector<uint8_t> present(queries);
  backend->contains(absent.data(), queries, present.data());
  const double measured =
      static_cast<double>(std::count(present.begin(), present.end(), 1)) / queries;
  std::cout << "[ fpr      ] " << layout.block_bits << "-bit k=" << layout.k << " contains: planned "
            << planned << " measured " << measured << "\n";
  EXPECT_NEAR(measured / planned, 1.0, 0.10)
      << layout.block_bits << "-bit k=" << layout.k << ": planned " << planned << ", measured "
      << measured;
}

// Distinct keys through test_and_set, one stream: each is reported present
// with the rate of the filter as it stands, so the false "present" answers
// add up to the sum of the rate over the fill (trapezoids over 1000 steps).
// The bits end as add would leave them.
TEST_P(MeasuredFprOfLayout, TestAndSetLosesWhatThePlanPredicts) {
  const Layout layout = GetParam();
  const FilterParams params{blocks_for(layout, kLayoutKeys, kLayoutFpr), layout, kDefaultSeed};
  Filter filter(params);
  auto backend = make_cpu_backend(filter, {2, CpuKernel::kSimd});
  const auto keys = hashed_range(0, kLayoutKeys, kDefaultSeed);
  std::vector<uint8_t> answers(keys.size());
  const uint64_t fresh = backend->test_and_set(keys.data(), keys.size(), answers.data());
  const double measured = static_cast<double>(kLayoutKeys - fresh);
  constexpr int kSteps = 1000;
  const double step = static_cast<double>(kLayoutKeys) / kSteps;
  double predicted = 0;
  for (int i = 0; i < kSteps; ++i) {
    predicted += step *
                 (expected_fpr(layout, params.num_blocks, static_cast<uint64_t>(step * i)) +
                  expected_fpr(layout, params.num_blocks, static_cast<uint64_t>(step * (i + 1)))) /
                 2;
  }
  std::cout << "[ fpr      ] " << layout.block_bits << "-bit k=" << layout.k
            << " test_and_set: predicted " << predicted << " false present, measured " << measured
            << "\n";
  EXPECT_NEAR(measured / predicted, 1.0, 0.10)
      << layout.block_bits << "-bit k=" << layout.k << ": predicted " << predicted
      << " false present answers, measured " << measured;

  Filter added(params);
  make_cpu_backend(added, {2, CpuKernel::kSimd})->add(keys.data(), keys.size());
  backend->sync_to_host();
  EXPECT_TRUE(std::equal(filter.words(), filter.words() + params.words(), added.words()))
      << layout.block_bits << "-bit k=" << layout.k;
}

INSTANTIATE_TEST_SUITE_P(EveryLayout, MeasuredFprOfLayout,
                         ::testing::Values(Layout{256, 8}, Layout{256, 16}, Layout{512, 16},
                                           Layout{512, 32}),
                         [](const ::testing::TestParamInfo<Layout>& info) {
                           return "b" + std::to_string(info.param.block_bits) + "_k" +
                                  std::to_string(info.param.k);
                         });

}  // namespace
}  // namespace gdedup
