// The growth schedule of a growing filter: layer plans, the compound rate
// and its bound. The layered filter itself: layered_filter_test.cpp.
#include "gdedup/growth.h"

#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gdedup/error.h"

namespace gdedup {
namespace {

GrowthRule rule_of(uint64_t first, double fpr, double tightening, uint32_t growth = 2) {
  GrowthRule rule;
  rule.first_capacity = first;
  rule.target_fpr = fpr;
  rule.tightening = tightening;
  rule.growth = growth;
  return rule;
}

TEST(Growth, LayersGrowByTheFactorAndTightenByTheRatio) {
  const GrowthRule rule = rule_of(10000, 1e-3, 0.5, 3);
  double rate = 1e-3 * 0.5;
  uint64_t capacity = 10000;
  for (uint32_t i = 0; i < 8; ++i) {
    const Plan plan = plan_layer(rule, i);
    SCOPED_TRACE(i);
    EXPECT_EQ(plan.capacity, capacity);
    EXPECT_LE(plan.expected_fpr, rate);
    // The smallest plan that meets the layer's rate, as the planner makes it.
    const Plan alone = plan_for_capacity(capacity, rate);
    EXPECT_EQ(plan.num_blocks, alone.num_blocks);
    EXPECT_EQ(plan.layout, alone.layout);
    capacity *= 3;
    rate *= 0.5;
  }
}

TEST(Growth, CompoundRateIsOneMinusTheProductOfPasses) {
  const double rates[] = {0.1, 0.2, 0.05};
  EXPECT_DOUBLE_EQ(compound_fpr(rates, 3), 1 - 0.9 * 0.8 * 0.95);
  EXPECT_EQ(compound_fpr(rates, 0), 0.0);
}

TEST(Growth, PointsCountLayersMemoryAndStayBelowTheTarget) {
  for (double tightening : {0.5, 0.85}) {
    for (double fpr : {1e-2, 1e-4}) {
      const GrowthRule rule = rule_of(5000, fpr, tightening);
      const std::vector<uint64_t> keys = {1, 5000, 5001, 15000, 15001, 1000000, 100000000};
      const std::vector<GrowthPoint> points = growth_at(rule, keys);
      ASSERT_EQ(points.size(), keys.size());
      for (size_t j = 0; j < keys.size(); ++j) {
        const GrowthPoint& p = points[j];
        SCOPED_TRACE(std::to_string(keys[j]) + " " + std::to_string(fpr) + " " +
                     std::to_string(tightening));
        EXPECT_EQ(p.keys, keys[j]);
        // Independently: fill layers in turn, add up their memory and rates.
        uint64_t left = keys[j], bytes = 0;
        uint32_t layers = 0;
        double pass = 1;
        do {
          const Plan plan = plan_layer(rule, layers++);
          const uint64_t in = std::min(left, plan.capacity);
          left -= in;
          bytes += plan.bytes();
          pass *= 1 - expected_fpr(plan.layout, plan.num_blocks, in);
        } while (left > 0);
        EXPECT_EQ(p.layers, layers);
        EXPECT_EQ(p.bytes, bytes);
        EXPECT_NEAR(p.fpr, 1 - pass, 1e-15);
        EXPECT_LE(p.fpr, fpr);
      }
      EXPECT_EQ(points[1].layers, 1u);
      EXPECT_EQ(points[2].layers, 2u);
      EXPECT_EQ(points[3].layers, 2u);
      EXPECT_EQ(points[4].layers, 3u);
    }
  }
}

TEST(Growth, FullLayersStayBelowTheTargetForAnyNumberOfLayers) {
  // Every layer full: the worst case of the bound sum(rates) < target.
  const GrowthRule rule = rule_of(1024, 1e-4, 0.85);
  std::vector<uint64_t> keys;
  uint64_t total = 0;
  for (uint32_t i = 0; i < 30; ++i) keys.push_back(total += plan_layer(rule, i).capacity);
  for (const GrowthPoint& p : growth_at(rule, keys)) EXPECT_LE(p.fpr, 1e-4) << p.keys;
}

TEST(Growth, BadRulesAreRefusedNamingTheValue) {
  auto message = [](const GrowthRule& rule) -> std::string {
    try {
      rule.validate();
    } catch (const UsageError& e) {
      return e.what();
    }
    return "accepted";
  };
  EXPECT_NE(message(rule_of(0, 1e-4, 0.5)).find("at least 1 key"), std::string::npos);
  EXPECT_NE(message(rule_of(10000, 1.5, 0.5)).find("1.5"), std::string::npos);
  EXPECT_NE(message(rule_of(10000, 1e-4, 1.0)).find("tightening ratio 1"), std::string::npos);
  EXPECT_NE(message(rule_of(10000, 1e-4, 0.5, 1)).find("growth factor 1"), std::string::npos);
  EXPECT_NE(message(rule_of(100, 1e-4, 0.5)).find("capacity 100 is below the 1024"),
            std::string::npos);
  EXPECT_EQ(message(rule_of(10000, 1e-4, 0.5)), "accepted");
  EXPECT_THROW(plan_layer(rule_of(1u << 20, 1e-4, 0.5), 64), UsageError);
}

}  // namespace
}  // namespace gdedup
