// Filter::part: a filter's blocks held in parts (an MPI job's ranks), with
// the CPU backend on each (the GPU backend: gpu_filter_part_test.cpp), and
// what a part refuses.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "filter_part_checks.h"
#include "gdedup/error.h"
#include "gdedup/filter.h"
#include "gdedup/filter_file.h"
#include "test_util.h"

namespace gdedup {
namespace {

TEST(FilterPart, CpuBackendsOnPartsAnswerAsTheWholeFilter) {
  for (const Layout& layout : kLayouts) {
    for (unsigned parts : {1u, 2u, 3u, 7u}) {
      test::expect_parts_answer_as_the_whole(test::cpu_layers(), layout, 1000, parts,
                                             test::keys_with_duplicates(40000, 12000, parts));
    }
  }
  // Several threads a part: keys of one part stay in their owners' order.
  CpuOptions threads;
  threads.threads = 3;
  threads.min_keys_per_thread = 1;
  test::expect_parts_answer_as_the_whole(
      [&](Filter& f) { return make_cpu_backend(f, threads); }, Layout{512, 16}, 777, 2,
      test::random_keys(30000, 5));
}

TEST(FilterPart, APartHoldsOnlyItsBlocks) {
  const FilterParams params{100, Layout{256, 8}, kDefaultSeed};
  const Filter part = Filter::part(params, 40, 25);
  EXPECT_FALSE(part.whole());
  EXPECT_EQ(part.first_block(), 40u);
  EXPECT_EQ(part.held_blocks(), 25u);
  EXPECT_EQ(part.held_bytes(), 25u * 32);
  EXPECT_EQ(part.count_set_bits(), 0u);
  EXPECT_TRUE(Filter(params).whole());
  EXPECT_THROW(Filter::part(params, 90, 11), UsageError);
  EXPECT_THROW(Filter::part(params, 0, 0), UsageError);
  EXPECT_THROW(Filter::part(params, 101, 1), UsageError);
}

TEST(FilterPart, APartIsNeverTakenForTheWholeFilter) {
  const FilterParams params{100, Layout{512, 16}, kDefaultSeed};
  Filter part = Filter::part(params, 0, 50);
  EXPECT_THROW(part.estimated_keys(), UsageError);
  EXPECT_THROW(part.current_fpr(), UsageError);
  const std::string path = ::testing::TempDir() + "gdedup_a_part_is_never_saved.gdf";
  EXPECT_THROW(save_filter(part, path), UsageError);
  EXPECT_FALSE(std::filesystem::exists(path));
  Filter other = Filter::part(params, 50, 50);
  EXPECT_THROW(part.merge(other), UsageError);
  Filter same = Filter::part(params, 0, 50);
  same.words()[3] = 0x10;
  part.merge(same);
  EXPECT_EQ(part.words()[3], 0x10u);
}

}  // namespace
}  // namespace gdedup
