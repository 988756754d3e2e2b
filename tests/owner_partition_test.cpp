// The split of keys by block owner, against oracles written from the
// definitions: an owner holds the blocks b with owner * n <= b * owners <
// (owner + 1) * n, buckets are the keys of one owner in input order, and
// scattered answers land on the keys they were computed for; an exact set's
// 84-bit keys by their ranges of values (mpi/key_ranges.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "core/owner_partition.h"
#include "gdedup/error.h"
#include "gdedup/layout.h"
#include "mpi/key_ranges.h"

namespace gdedup::detail {
namespace {

using u128 = unsigned __int128;

unsigned oracle_owner(uint64_t block, uint64_t num_blocks, unsigned owners) {
  for (unsigned o = 0; o < owners; ++o) {
    if (u128{block} * owners < u128{o + 1} * num_blocks) return o;
  }
  ADD_FAILURE() << "block " << block << " has no owner";
  return 0;
}

// Every key's answer, wherever it is computed: a byte that differs between
// most pairs of keys, so an answer given to the wrong key shows.
uint8_t answer_for(uint64_t fingerprint) {
  return static_cast<uint8_t>((fingerprint * 0x9e3779b97f4a7c15u) >> 56);
}

TEST(OwnerPartition, OwnersHoldContiguousRangesOfFairSize) {
  for (uint64_t num_blocks : {1u, 2u, 3u, 7u, 64u, 1000u, 4099u}) {
    for (unsigned owners : {1u, 2u, 3u, 5u, 8u, 256u, 65536u}) {
      const BlockOwners split(num_blocks, owners);
      ASSERT_EQ(split.first_block(0), 0u);
      ASSERT_EQ(split.first_block(owners), num_blocks);
      for (unsigned o = 0; o < owners; ++o) {
        const uint64_t first = split.first_block(o), end = split.first_block(o + 1);
        ASSERT_LE(end - first, num_blocks / owners + 1) << num_blocks << "/" << owners;
        ASSERT_GE(end - first, num_blocks / owners) << num_blocks << "/" << owners;
        for (uint64_t b = first; b < end; ++b) {
          ASSERT_EQ(split.owner_of_block(b), o) << "block " << b << " of " << num_blocks;
          ASSERT_EQ(oracle_owner(b, num_blocks, owners), o) << "block " << b;
        }
      }
    }
  }
}

TEST(OwnerPartition, HugeFiltersSplitWithoutOverflow) {
  const uint64_t num_blocks = uint64_t{1} << 41;  // a 64 TiB filter of 256-bit blocks
  const BlockOwners split(num_blocks, 7);
  std::mt19937_64 rng(6);
  for (int i = 0; i < 1000; ++i) {
    const uint64_t b = rng() % num_blocks;
    ASSERT_EQ(split.owner_of_block(b), oracle_owner(b, num_blocks, 7)) << "block " << b;
  }
  EXPECT_EQ(split.owner_of_block(num_blocks - 1), 6u);
}

TEST(OwnerPartition, BucketsKeepInputOrderAndAnswersReturnToTheirKeys) {
  std::mt19937_64 rng(14);
  for (uint64_t num_blocks : {1u, 5u, 1000u, 1u << 20}) {
    for (unsigned owners : {1u, 2u, 3u, 8u, 256u, 257u, 1000u}) {
      const BlockOwners split(num_blocks, owners);
      std::vector<uint64_t> keys(3000);
      for (uint64_t& k : keys) k = rng();
      const uint64_t lo = 100, hi = 2900;  // a slice, as one thread's share
      std::vector<OwnerBucket> row(owners + 3);  // stale buckets from a bigger call
      row.back().fingerprints.assign(5, 1);
      std::vector<OwnerIndex> owner_of_key(keys.size(), 0xee);
      partition_by_owner(split, keys.data(), lo, hi, row, owner_of_key.data());

      ASSERT_EQ(row.size(), owners);
      std::vector<std::vector<uint64_t>> expected(owners);
      for (uint64_t i = lo; i < hi; ++i) {
        expected[oracle_owner(block_index(keys[i], num_blocks), num_blocks, owners)].push_back(
            keys[i]);
      }
      for (unsigned o = 0; o < owners; ++o) {
        ASSERT_EQ(row[o].fingerprints, expected[o]) << "owner " << o << " of " << owners;
        for (uint64_t k : row[o].fingerprints) row[o].answers.push_back(answer_for(k));
      }
      for (uint64_t i = 0; i < keys.size(); ++i) {
        if (i < lo || i >= hi) {
          ASSERT_EQ(owner_of_key[i], 0xee) << "key " << i << " outside";
        }
      }

      std::vector<uint8_t> answers(keys.size(), 0);
      scatter_answers(row, owner_of_key.data(), lo, hi, answers.data());
      for (uint64_t i = lo; i < hi; ++i) {
        ASSERT_EQ(answers[i], answer_for(keys[i])) << "key " << i << ", " << owners << " owners";
      }
    }
  }
}

TEST(OwnerPartition, OwnersOfAPartShareItsBlocksEvenly) {
  // The blocks [first, first + held) of a filter (an MPI rank's part): every
  // owner gets held / owners of them, rounded, and every key whose block is
  // held goes to the owner of its range.
  const uint64_t num_blocks = 1000003;
  for (const auto& [first, held] : {std::pair<uint64_t, uint64_t>{0, 1000003},
                                    {333334, 333334}, {999999, 4}, {17, 1}}) {
    for (unsigned owners : {1u, 2u, 3u, 7u}) {
      if (owners > held) continue;
      const BlockOwners split(num_blocks, owners, first, held);
      ASSERT_EQ(split.first_block(0), first);
      ASSERT_EQ(split.first_block(owners), first + held);
      for (unsigned o = 0; o < owners; ++o) {
        const uint64_t size = split.first_block(o + 1) - split.first_block(o);
        EXPECT_TRUE(size == held / owners || size == held / owners + 1)
            << size << " of " << held << " blocks for owner " << o << " of " << owners;
        EXPECT_EQ(split.owner_of_block(split.first_block(o)), o);
        EXPECT_EQ(split.owner_of_block(split.first_block(o + 1) - 1), o);
      }
    }
  }
}

TEST(OwnerPartition, ImpossibleSplitsAreRefused) {
  EXPECT_THROW(BlockOwners(0, 1), Error);
  EXPECT_THROW(BlockOwners(10, 0), Error);
  EXPECT_THROW(BlockOwners(10, BlockOwners::kMaxOwners + 1), Error);
  EXPECT_THROW(BlockOwners(10, 1, 5, 6), Error);
  EXPECT_THROW(BlockOwners(10, 1, 11, 0), Error);
  EXPECT_THROW(BlockOwners(10, 1, 3, 0), Error);
}

// The ranks' ranges ascend with the rank and cover every key; a key's place
// in its owner's set is below 2^84, maps back to the key, and keeps the
// order of the owner's keys; keys split by their ranges answer in place.
TEST(KeyRanges, OwnRangesAscendingAndPlaceKeysOneToOne) {
  const Key84 top = (Key84{1} << kKeyBits) - 1;
  std::mt19937_64 random(84);
  std::vector<Key84> keys = {0, 1, top, top - 1, Key84{1} << 83, (Key84{1} << 83) - 1};
  for (int i = 0; i < 4000; ++i) {
    keys.push_back(((static_cast<Key84>(random()) << 64) | random()) & top);
  }
  std::sort(keys.begin(), keys.end());
  for (unsigned ranks = 1; ranks <= 7; ++ranks) {
    const mpi::KeyRanges ranges(ranks);
    EXPECT_EQ(ranges.owner_of(0), 0u);
    EXPECT_EQ(ranges.owner_of(top), ranks - 1);
    for (size_t i = 0; i < keys.size(); ++i) {
      const unsigned owner = ranges.owner_of(keys[i]);
      ASSERT_LT(owner, ranks);
      const Key84 local = ranges.local(keys[i]);
      ASSERT_LE(local, top);
      ASSERT_TRUE(ranges.global(local, owner) == keys[i]) << "key " << i << " of " << ranks;
      if (i == 0) continue;
      const unsigned before = ranges.owner_of(keys[i - 1]);
      ASSERT_LE(before, owner);
      if (before == owner && keys[i - 1] != keys[i]) {
        ASSERT_TRUE(ranges.local(keys[i - 1]) < local) << "key " << i << " of " << ranks;
      }
    }
    std::vector<OwnerBucketOf<Key84>> row;
    std::vector<OwnerIndex> owner_of_key(keys.size());
    partition_by_owner(ranges, keys.data(), 0, keys.size(), row, owner_of_key.data());
    for (OwnerBucketOf<Key84>& bucket : row) {
      for (const Key84 key : bucket.fingerprints) {
        bucket.answers.push_back(static_cast<uint8_t>(key * 31 >> 70));
      }
    }
    std::vector<uint8_t> answers(keys.size());
    scatter_answers(row, owner_of_key.data(), 0, keys.size(), answers.data());
    for (size_t i = 0; i < keys.size(); ++i) {
      ASSERT_EQ(answers[i], static_cast<uint8_t>(keys[i] * 31 >> 70));
    }
  }
}

}  // namespace
}  // namespace gdedup::detail
