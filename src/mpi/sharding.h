// How the ranks share a filter (gdedup/frontend/mpi.h, ShardedFilter): rank r owns
// the blocks BlockOwners gives owner r of `ranks` of the newest layer
// (core/owner_partition.h), so a fingerprint's owner is found from its
// block alone, by every rank alike; of each older layer it holds the blocks
// the fingerprints it owns map to.
#pragma once

#include <cstdint>
#include <vector>

#include "core/owner_partition.h"
#include "gdedup/frontend/mpi.h"
#include "gdedup/layout.h"

namespace gdedup::mpi {

// The job's owners of `num_blocks` blocks, one per rank. Throws UsageError
// for more ranks than BlockOwners::kMaxOwners or than blocks.
detail::BlockOwners block_owners(uint64_t num_blocks);

// Blocks [begin, end) of a layer.
struct BlockRange {
  uint64_t begin = 0;
  uint64_t end = 0;
  uint64_t size() const { return end - begin; }
  bool operator==(const BlockRange& o) const { return begin == o.begin && end == o.end; }
};

// The blocks each of `ranks` ranks holds of layer `layer` of a filter whose
// layers, oldest first, have `layer_blocks` blocks: of the newest, those
// BlockOwners gives it; of an older one, every block that a fingerprint
// whose newest block the rank holds falls in. The ranges ascend with the
// rank and cover every block; ranges of an older layer may share a block at
// their edges.
std::vector<BlockRange> held_blocks(const std::vector<uint64_t>& layer_blocks, size_t layer,
                                    unsigned ranks);

// The rank whose copy of `block` stands for all (saving, counting): the
// first whose range, of `held` (held_blocks'), holds it.
unsigned holder_of(const std::vector<BlockRange>& held, uint64_t block);

}  // namespace gdedup::mpi
