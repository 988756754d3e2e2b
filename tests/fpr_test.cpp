// Measured false-positive rates against the planner's promise: fill a filter
// with exactly the planned number of distinct keys, query keys never
// inserted, and compare. Enough queries are made for about 2000 expected
// false positives, so the statistical error (about 2%) is well inside the
// 10% tolerance.
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

}  // namespace
}  // namespace gdedup
