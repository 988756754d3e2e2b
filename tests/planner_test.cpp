// The planner's arithmetic and its refusals. Measured FPR: fpr_test.cpp.
#include "gdedup/planner.h"

#include <cmath>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include "gdedup/error.h"
#include "test_util.h"

namespace gdedup {
namespace {

template <class Fn>
std::string usage_error_of(Fn fn) {
  try {
    fn();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "no UsageError";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(Planner, PlansAreTheSmallestThatMeetTheTarget) {
  for (uint64_t n : {1ull, 1000ull, 1000000ull, 1000000000ull}) {
    for (double p : {0.1, 1e-2, 1e-4, 1e-6}) {
      for (uint32_t bits : {0u, 256u, 512u}) {
        const Plan plan = plan_for_capacity(n, p, bits);
        SCOPED_TRACE(std::to_string(n) + " " + std::to_string(p) + " " + std::to_string(bits));
        EXPECT_TRUE(is_supported_layout(plan.layout));
        if (bits != 0) {
          EXPECT_EQ(plan.layout.block_bits, bits);
        }
        EXPECT_LE(plan.expected_fpr, p);
        EXPECT_DOUBLE_EQ(plan.expected_fpr, expected_fpr(plan.layout, plan.num_blocks, n));
        if (plan.num_blocks > 1) {
          EXPECT_GT(expected_fpr(plan.layout, plan.num_blocks - 1, n), p);
        }
      }
    }
  }
}

// The search starts near the answer instead of at one block; wherever it
// starts, the plan must be the fewest blocks that meet the target.
TEST(Planner, RandomPlansAreTheSmallestThatMeetTheTarget) {
  test::Rng rng(11);
  const auto uniform = [&rng] { return static_cast<double>(rng.next() >> 11) * 0x1p-53; };
  for (int i = 0; i < 300; ++i) {
    const auto n = static_cast<uint64_t>(std::exp(std::log(1e12) * uniform())) + 1;
    const double p = std::exp(std::log(1e-9) + std::log(0.5 / 1e-9) * uniform());
    const uint32_t bits = i % 3 == 0 ? 0 : i % 3 == 1 ? 256 : 512;
    const Plan plan = plan_for_capacity(n, p, bits);
    SCOPED_TRACE(std::to_string(n) + " " + std::to_string(p) + " " + std::to_string(bits));
    EXPECT_LE(expected_fpr(plan.layout, plan.num_blocks, n), p);
    if (plan.num_blocks > 1) {
      EXPECT_GT(expected_fpr(plan.layout, plan.num_blocks - 1, n), p);
    }
  }
}

TEST(Planner, BitsPerKeyMatchTheSplitBlockLayout) {
  // Known figures for the split-block layout at 1e-4: 512-bit blocks with
  // k = 16 need about 23.0 bits a key, Parquet's 256-bit k = 8 about 26.3
  // (the classic unblocked filter would need 19.2).
  const Plan best = plan_for_capacity(100000000, 1e-4);
  EXPECT_EQ(best.layout, (Layout{512, 16}));
  EXPECT_NEAR(best.bits_per_key(), 23.0, 0.1);
  EXPECT_NEAR(plan_for_capacity(100000000, 1e-4, 256).bits_per_key(), 26.3, 0.1);
  EXPECT_EQ(plan_for_capacity(100000000, 1e-2).layout, (Layout{256, 8}));
  EXPECT_NEAR(plan_for_capacity(100000000, 1e-2).bits_per_key(), 10.5, 0.1);
}

TEST(Planner, ExactFprExceedsTheClassicFormula) {
  // Uneven block loads make a blocked filter worse than the classic formula
  // at the same bits per key; a planner using the latter would under-size.
  const double bits_per_key = 23.0, k = 16;
  const double classic = std::pow(1 - std::exp(-k / bits_per_key), k);
  const double exact = layout_fpr({512, 16}, 512 / bits_per_key);
  EXPECT_GT(exact, classic * 1.5);
  EXPECT_EQ(layout_fpr({256, 8}, 0), 0.0);
  EXPECT_NEAR(layout_fpr({256, 8}, 1e9), 1.0, 1e-12);
}

TEST(Planner, MemoryBudgetGivesTheLowestFprThatFits) {
  const uint64_t budget = uint64_t{1} << 30;
  const Plan plan = plan_for_memory(budget, 300000000);
  EXPECT_LE(plan.bytes(), budget);
  EXPECT_GT(plan.bytes(), budget - 64);
  for (Layout layout : {Layout{256, 8}, Layout{256, 16}, Layout{512, 16}, Layout{512, 32}}) {
    EXPECT_LE(plan.expected_fpr,
              expected_fpr(layout, budget / (layout.block_bits / 8), 300000000));
  }
  EXPECT_LT(plan_for_memory(2 * budget, 300000000).expected_fpr, plan.expected_fpr);
  EXPECT_EQ(plan_for_memory(budget, 300000000, 256).layout.block_bits, 256u);
}

TEST(Planner, NonsenseIsRefusedNamingTheValue) {
  EXPECT_TRUE(contains(usage_error_of([] { plan_for_capacity(0, 1e-4); }), "capacity 0"));
  EXPECT_TRUE(contains(usage_error_of([] { plan_for_capacity(10, 0); }), "rate 0 is out of range"));
  EXPECT_TRUE(contains(usage_error_of([] { plan_for_capacity(10, 1); }), "rate 1 is out of range"));
  EXPECT_TRUE(contains(usage_error_of([] { plan_for_capacity(10, -0.5); }), "-0.5"));
  EXPECT_TRUE(contains(usage_error_of([] {
    plan_for_capacity(10, std::numeric_limits<double>::quiet_NaN());
  }), "out of range"));
  EXPECT_TRUE(contains(usage_error_of([] { plan_for_capacity(10, 1e-4, 128); }),
                       "block size 128 bits is not supported"));
  EXPECT_TRUE(contains(usage_error_of([] { plan_for_capacity(uint64_t{1} << 62, 1e-9); }),
                       "more than 128 TiB"));
  EXPECT_TRUE(contains(usage_error_of([] { plan_for_memory(31, 10); }),
                       "less than one filter block"));
  EXPECT_TRUE(contains(usage_error_of([] { plan_for_memory(uint64_t{1} << 50, 10); }),
                       "beyond the 128 TiB"));
  EXPECT_TRUE(contains(usage_error_of([] { plan_for_memory(1 << 20, 0); }), "capacity 0"));
}

// The remedy is the caller's to name (the command line's flags, a binding's
// parameters): the error gives its kind and the numbers, and no flag.
TEST(Planner, AnInfeasiblePlanSaysSoByKindAndNamesNoFlag) {
  try {
    plan_for_capacity(uint64_t{1} << 62, 1e-9);
    FAIL() << "no exception";
  } catch (const UsageError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::plan_infeasible);
    EXPECT_EQ(e.available(), uint64_t{128} << 40);
    EXPECT_GT(e.needed(), e.available());
    EXPECT_EQ(std::string(e.what()).find("--"), std::string::npos) << e.what();
  }
  try {
    plan_for_capacity(10, 0);
    FAIL() << "no exception";
  } catch (const UsageError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::invalid_argument);
  }
}

}  // namespace
}  // namespace gdedup
