// held_blocks (mpi/sharding.h), the blocks of each layer a rank of a sharded
// growing filter holds, against fingerprints: every fingerprint whose
// newest block a rank owns must fall in that rank's blocks of every older
// layer, or the rank would answer it from bits it does not hold; and the
// ranges must cover every block, in rank order, so that a save finds each.
#include "mpi/sharding.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace gdedup::mpi {
namespace {

TEST(HeldBlocks, EveryOwnedFingerprintFallsInTheRanksBlocksOfEveryLayer) {
  std::mt19937_64 random(7);
  for (int trial = 0; trial < 300; ++trial) {
    const unsigned ranks = 1 + static_cast<unsigned>(random() % 9);
    std::vector<uint64_t> blocks;
    const size_t layers = 1 + random() % 5;
    uint64_t n = ranks + random() % 500;
    for (size_t i = 0; i < layers; ++i) {
      blocks.push_back(n);
      n = n * 2 + random() % 7;
    }
    const detail::BlockOwners owners(blocks.back(), ranks);
    std::vector<std::vector<BlockRange>> held;
    for (size_t i = 0; i < layers; ++i) {
      held.push_back(held_blocks(blocks, i, ranks));
      // In rank order, from the first block to the last, without a gap.
      EXPECT_EQ(held[i].front().begin, 0u);
      EXPECT_EQ(held[i].back().end, blocks[i]);
      for (unsigned r = 0; r < ranks; ++r) {
        EXPECT_LT(held[i][r].begin, held[i][r].end);
        if (r > 0) {
          EXPECT_LE(held[i][r].begin, held[i][r - 1].end);
          EXPECT_GE(held[i][r].end, held[i][r - 1].end);
        }
      }
    }
    // The newest layer's are the owners' own, shared by none.
    for (unsigned r = 0; r < ranks; ++r) {
      EXPECT_EQ(held.back()[r], (BlockRange{owners.first_block(r), owners.first_block(r + 1)}));
    }
    for (int k = 0; k < 2000; ++k) {
      // Fingerprints at block edges too, where a rounding would show.
      uint64_t fingerprint = random();
      if (k % 3 == 0) {
        const uint64_t b = random() % blocks.back();
        fingerprint = static_cast<uint64_t>(
            ((static_cast<unsigned __int128>(b) << 64) + blocks.back() - 1) / blocks.back() -
            (k % 2));
      }
      const unsigned owner = owners.owner_of(fingerprint);
      for (size_t i = 0; i < layers; ++i) {
        const uint64_t block = block_index(fingerprint, blocks[i]);
        EXPECT_GE(block, held[i][owner].begin) << "layer " << i << " rank " << owner;
        EXPECT_LT(block, held[i][owner].end) << "layer " << i << " rank " << owner;
        EXPECT_LE(held[i][holder_of(held[i], block)].begin, block);
      }
    }
  }
}

}  // namespace
}  // namespace gdedup::mpi
