// How the ranks share a filter: rank r owns the blocks BlockOwners gives
// owner r of `ranks` (core/owner_partition.h), so a fingerprint's owner is
// found from its block alone, by every rank alike.
#pragma once

#include <cstdint>

#include "core/owner_partition.h"
#include "gdedup/layout.h"
#include "gdedup/mpi.h"

namespace gdedup::mpi {

// The job's owners of `num_blocks` blocks, one per rank. Throws UsageError
// for more ranks than BlockOwners::kMaxOwners or than blocks.
detail::BlockOwners block_owners(uint64_t num_blocks);

}  // namespace gdedup::mpi
