// FilterRef (layout.h), the one way every backend addresses a filter's
// blocks, whole or a shard of it. Two shards holding the halves of a filter,
// each in an array of its own, must give every key they own the answer the
// whole filter gives it, and together hold the whole filter's bits: through
// the scalar reference and through the CPU kernels, scalar and SIMD. (The
// CUDA kernels on shards: tests/gpu_backend_test.cpp.)
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "cpu/kernels.h"
#include "gdedup/layout.h"
#include "test_util.h"

namespace gdedup {
namespace {

static_assert(std::is_trivially_copyable_v<FilterRef>);

using test::keys_with_duplicates;
using test::layout_name;
using test::random_keys;

// The whole filter, one key at a time in input order.
struct Whole {
  std::vector<uint32_t> words;
  FilterRef ref;
  Whole(uint64_t num_blocks, const Layout& layout)
      : words(num_blocks * layout.block_words(), 0),
        ref(whole_filter(words.data(), num_blocks, layout)) {}
  Whole(const Whole&) = delete;  // ref points into words
};

// Blocks [0, split) and [split, num_blocks) of a filter, in arrays of their own.
struct Halves {
  std::vector<uint32_t> low, high;
  FilterRef part[2];
  Halves(uint64_t num_blocks, const Layout& layout, uint64_t split)
      : low(split * layout.block_words(), 0),
        high((num_blocks - split) * layout.block_words(), 0),
        part{FilterRef{low.data(), num_blocks, layout, 0, split},
             FilterRef{high.data(), num_blocks, layout, split, num_blocks - split}} {}
  Halves(const Halves&) = delete;  // part points into low and high

  // Which half holds the key's block; exactly one of them does.
  int owner(uint64_t fingerprint) const {
    const bool low_holds = part[0].holds(part[0].block_of(fingerprint));
    const bool high_holds = part[1].holds(part[1].block_of(fingerprint));
    EXPECT_NE(low_holds, high_holds) << std::hex << fingerprint;
    return low_holds ? 0 : 1;
  }
  std::vector<uint32_t> joined() const {
    std::vector<uint32_t> all(low);
    all.insert(all.end(), high.begin(), high.end());
    return all;
  }
};

struct Shape {
  uint64_t num_blocks, split;
};
const Shape kShapes[] = {{2, 1}, {7, 3}, {1001, 500}, {1001, 1}};

TEST(FilterRef, ShardsOfTheReferenceAnswerAsTheWholeFilter) {
  const std::vector<uint64_t> keys = keys_with_duplicates(20000, 6000, 3);
  const std::vector<uint64_t> probes = random_keys(20000, 4);
  for (const Layout& layout : kLayouts) {
    for (const Shape& s : kShapes) {
      SCOPED_TRACE(layout_name(layout) + ", " + std::to_string(s.num_blocks) +
                   " blocks split at " + std::to_string(s.split));
      Whole whole(s.num_blocks, layout);
      Halves halves(s.num_blocks, layout, s.split);
      for (size_t i = 0; i < keys.size(); ++i) {
        const bool expected = key_test_and_set(whole.ref, keys[i]);
        ASSERT_EQ(key_test_and_set(halves.part[halves.owner(keys[i])], keys[i]), expected) << i;
      }
      ASSERT_EQ(halves.joined(), whole.words);
      for (size_t i = 0; i < probes.size(); ++i) {
        ASSERT_EQ(key_contains(halves.part[halves.owner(probes[i])], probes[i]),
                  key_contains(whole.ref, probes[i]))
            << i;
      }
    }
  }
}

// The keys each half owns, in input order, and where each came from.
struct Split {
  std::vector<uint64_t> keys[2];
  std::vector<size_t> from[2];
  Split(const Halves& halves, const std::vector<uint64_t>& all) {
    for (size_t i = 0; i < all.size(); ++i) {
      const int o = halves.owner(all[i]);
      keys[o].push_back(all[i]);
      from[o].push_back(i);
    }
  }
};

TEST(FilterRef, ShardsThroughTheCpuKernelsAnswerAsTheWholeReference) {
  const std::vector<uint64_t> keys = keys_with_duplicates(20000, 6000, 5);
  const std::vector<uint64_t> probes = random_keys(20000, 6);
  for (const cpu::Arith arith : {cpu::Arith::kScalar, cpu::Arith::kSimd}) {
    const cpu::Kernels kernels(arith, "");
    for (const Layout& layout : kLayouts) {
      for (const Shape& s : kShapes) {
        SCOPED_TRACE(kernels.target_name() + (arith == cpu::Arith::kSimd ? " SIMD, " : " scalar, ") +
                     layout_name(layout) + ", " + std::to_string(s.num_blocks) +
                     " blocks split at " + std::to_string(s.split));
        Whole whole(s.num_blocks, layout);
        uint64_t expected_fresh = 0;
        std::vector<uint8_t> expected(keys.size());
        for (size_t i = 0; i < keys.size(); ++i) {
          expected[i] = key_test_and_set(whole.ref, keys[i]);
          expected_fresh += !expected[i];
        }

        Halves halves(s.num_blocks, layout, s.split);
        const Split split(halves, keys);
        std::vector<uint8_t> answers(keys.size(), 0xee);
        uint64_t fresh = 0;
        for (int p = 0; p < 2; ++p) {
          std::vector<uint8_t> mine(split.keys[p].size());
          fresh += kernels.test_and_set_run(
              {halves.part[p], split.keys[p].data(), split.keys[p].size(), mine.data()});
          for (size_t j = 0; j < mine.size(); ++j) answers[split.from[p][j]] = mine[j];
        }
        EXPECT_EQ(fresh, expected_fresh);
        ASSERT_EQ(answers, expected);
        ASSERT_EQ(halves.joined(), whole.words);

        const Split queried(halves, probes);
        std::vector<uint8_t> present(probes.size(), 0xee);
        for (int p = 0; p < 2; ++p) {
          std::vector<uint8_t> mine(queried.keys[p].size());
          kernels.contains_run(
              {halves.part[p], queried.keys[p].data(), queried.keys[p].size(), mine.data()});
          for (size_t j = 0; j < mine.size(); ++j) present[queried.from[p][j]] = mine[j];
        }
        for (size_t i = 0; i < probes.size(); ++i) {
          ASSERT_EQ(present[i], key_contains(whole.ref, probes[i]) ? 1 : 0) << i;
        }
      }
    }
  }
}

}  // namespace
}  // namespace gdedup
