// Backends on Filter::part, as an MPI job's ranks run them: three parts of a
// filter, each with its own backend from one BackendMaker, must answer every
// key they hold as one backend on the whole filter answers it, and hold its
// bits between them. tests/filter_part_test.cpp runs it on the CPU backend,
// tests/gpu_filter_part_test.cpp on the GPU backend.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <memory>
#include <vector>

#include "core/owner_partition.h"
#include "gdedup/backend.h"
#include "gdedup/layered_filter.h"
#include "test_util.h"

namespace gdedup::test {

inline void expect_parts_answer_as_the_whole(const BackendMaker& make, const Layout& layout,
                                             uint64_t num_blocks, unsigned parts,
                                             const std::vector<uint64_t>& keys) {
  SCOPED_TRACE(layout_name(layout) + ", " + std::to_string(num_blocks) + " blocks in " +
               std::to_string(parts) + " parts");
  const FilterParams params{num_blocks, layout, kDefaultSeed};
  Filter whole(params);
  std::vector<uint8_t> want(keys.size());
  const std::unique_ptr<Backend> on_whole = make(whole);
  const uint64_t want_fresh = on_whole->test_and_set(keys.data(), keys.size(), want.data());
  on_whole->sync_to_host();

  const detail::BlockOwners owners(num_blocks, parts);
  std::vector<Filter> held;
  std::vector<std::unique_ptr<Backend>> backends;
  std::vector<std::vector<uint64_t>> routed(parts);
  std::vector<std::vector<size_t>> where(parts);
  for (unsigned p = 0; p < parts; ++p) {
    const uint64_t first = owners.first_block(p);
    held.push_back(Filter::part(params, first, owners.first_block(p + 1) - first));
  }
  for (Filter& part : held) backends.push_back(make(part));
  for (size_t i = 0; i < keys.size(); ++i) {
    const unsigned p = owners.owner_of_block(block_index(keys[i], num_blocks));
    routed[p].push_back(keys[i]);
    where[p].push_back(i);
  }
  std::vector<uint8_t> got(keys.size(), 2);
  uint64_t fresh = 0;
  for (unsigned p = 0; p < parts; ++p) {
    std::vector<uint8_t> answers(routed[p].size());
    // Two calls, as rounds of a job make them.
    const size_t half = routed[p].size() / 2;
    fresh += backends[p]->test_and_set(routed[p].data(), half, answers.data());
    fresh += backends[p]->test_and_set(routed[p].data() + half, routed[p].size() - half,
                                       answers.data() + half);
    for (size_t j = 0; j < answers.size(); ++j) got[where[p][j]] = answers[j];
    std::vector<uint8_t> present(routed[p].size());
    backends[p]->contains(routed[p].data(), routed[p].size(), present.data());
    for (uint8_t a : present) ASSERT_EQ(a, 1);
    backends[p]->sync_to_host();
    EXPECT_EQ(held[p].counters().insertions, static_cast<uint64_t>(std::count(
                                                 answers.begin(), answers.end(), uint8_t{0})));
  }
  EXPECT_EQ(got, want);
  EXPECT_EQ(fresh, want_fresh);
  std::vector<uint32_t> joined;
  uint64_t set_bits = 0;
  for (const Filter& part : held) {
    joined.insert(joined.end(), part.words(), part.words() + part.held_bytes() / 4);
    set_bits += part.count_set_bits();
  }
  EXPECT_TRUE(joined == std::vector<uint32_t>(whole.words(), whole.words() + params.words()));
  EXPECT_EQ(set_bits, whole.count_set_bits());
}

}  // namespace gdedup::test
