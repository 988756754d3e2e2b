// The numbers `gdedup info` and Python's Filter.info() give of a filter
// (gdedup/filter_summary.h): one layer's against its bits counted here, and
// a growing filter's layers as one: sizes and counts added, rates
// compounded (a key is a false positive unless no layer takes it for
// present).
#include "gdedup/filter_summary.h"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "gdedup/backend.h"
#include "test_util.h"

namespace gdedup {
namespace {

uint64_t bits_counted_here(const Filter& filter) {
  uint64_t bits = 0;
  const auto* bytes = reinterpret_cast<const unsigned char*>(filter.words());
  for (uint64_t i = 0; i < filter.params().bytes(); ++i) bits += __builtin_popcount(bytes[i]);
  return bits;
}

Filter filled(uint64_t blocks, uint64_t keys, uint64_t seed) {
  Filter filter(FilterParams{blocks, {512, 16}, kDefaultSeed});
  filter.counters().planned_capacity = keys * 2;
  filter.counters().planned_fpr = 1e-4 * static_cast<double>(seed);
  auto backend = make_cpu_backend(filter);
  const std::vector<uint64_t> fps = test::random_keys(keys, seed);
  backend->add(fps.data(), fps.size());
  return filter;
}

TEST(FilterSummary, OneLayerIsItsBitsAndCounters) {
  const Filter filter = filled(1 << 10, 5000, 1);
  const FilterSummary s = summarize(filter);
  EXPECT_EQ(s.layers, 1u);
  EXPECT_EQ(s.blocks, 1u << 10);
  EXPECT_EQ(s.bytes, filter.params().bytes());
  EXPECT_EQ(s.total_bits, filter.params().bytes() * 8);
  EXPECT_EQ(s.set_bits, bits_counted_here(filter));
  EXPECT_DOUBLE_EQ(s.fill, static_cast<double>(s.set_bits) / static_cast<double>(s.total_bits));
  EXPECT_EQ(s.insertions, 5000u);
  EXPECT_EQ(s.planned_capacity, 10000u);
  EXPECT_DOUBLE_EQ(s.planned_fpr, 1e-4);
  EXPECT_NEAR(s.estimated_keys, 5000, 250);
  EXPECT_GT(s.current_fpr, 0);
  EXPECT_NEAR(s.current_fpr / s.expected_fpr, 1, 0.2);
  // One layer is its own total, to the last bit of every rate.
  const std::vector<const Filter*> one = {&filter};
  const FilterSummary whole = summarize(one);
  EXPECT_EQ(whole.current_fpr, s.current_fpr);
  EXPECT_EQ(whole.planned_fpr, s.planned_fpr);
}

TEST(FilterSummary, LayersAddUpAndTheirRatesCompound) {
  const Filter a = filled(1 << 8, 1500, 2);
  const Filter b = filled(1 << 10, 4000, 3);
  const Filter c = filled(1 << 12, 100, 4);
  const std::vector<const Filter*> layers = {&a, &b, &c};
  const FilterSummary s = summarize(layers);
  const FilterSummary sa = summarize(a), sb = summarize(b), sc = summarize(c);
  EXPECT_EQ(s.layers, 3u);
  EXPECT_EQ(s.blocks, sa.blocks + sb.blocks + sc.blocks);
  EXPECT_EQ(s.bytes, sa.bytes + sb.bytes + sc.bytes);
  EXPECT_EQ(s.set_bits, sa.set_bits + sb.set_bits + sc.set_bits);
  EXPECT_EQ(s.insertions, 5600u);
  EXPECT_EQ(s.planned_capacity, 11200u);
  EXPECT_DOUBLE_EQ(s.estimated_keys, sa.estimated_keys + sb.estimated_keys + sc.estimated_keys);
  auto compound = [](double x, double y, double z) { return 1 - (1 - x) * (1 - y) * (1 - z); };
  EXPECT_NEAR(s.current_fpr, compound(sa.current_fpr, sb.current_fpr, sc.current_fpr), 1e-15);
  EXPECT_NEAR(s.expected_fpr, compound(sa.expected_fpr, sb.expected_fpr, sc.expected_fpr), 1e-15);
  EXPECT_NEAR(s.planned_fpr, compound(2e-4, 3e-4, 4e-4), 1e-15);
}

}  // namespace
}  // namespace gdedup
