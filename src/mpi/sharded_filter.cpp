// ShardedFilter (gdedup/mpi.h): this rank's blocks in memory of their own
// size, and the whole filter's counters and bit count summed over the ranks.
// Saving and loading are in sharded_filter_file.cpp.
#include <mpi.h>

#include "core/bit_count.h"
#include "core/host_memory.h"
#include "core/owner_partition.h"
#include "gdedup/error.h"
#include "gdedup/mpi.h"
#include "mpi/check.h"
#include "mpi/sharding.h"

namespace gdedup::mpi {

detail::BlockOwners block_owners(uint64_t num_blocks) {
  const unsigned ranks = rank_info().ranks;
  if (ranks > detail::BlockOwners::kMaxOwners) {
    throw UsageError("this job has " + std::to_string(ranks) + " ranks, but a filter is shared "
                     "by at most " + std::to_string(detail::BlockOwners::kMaxOwners) +
                     "; run fewer ranks");
  }
  if (num_blocks < ranks) {
    throw UsageError("the filter has " + std::to_string(num_blocks) + " blocks, fewer than the " +
                     std::to_string(ranks) + " ranks that would share them; give a larger "
                     "--capacity or --memory, or run fewer ranks");
  }
  return detail::BlockOwners(num_blocks, ranks);
}

ShardedFilter::ShardedFilter(const FilterParams& params, const FilterCounters& counters)
    : params_(params), counters_(counters) {
  params_.validate();
  const detail::BlockOwners owners = block_owners(params_.num_blocks);
  const unsigned rank = rank_info().rank;
  first_block_ = owners.first_block(rank);
  held_blocks_ = owners.first_block(rank + 1) - first_block_;
  bytes_ = held_blocks_ * (params_.layout.block_bits / 8);
  words_ = static_cast<uint32_t*>(detail::allocate_zeroed(bytes_));
}

ShardedFilter::~ShardedFilter() {
  if (words_ != nullptr) detail::release(words_, bytes_);
}

FilterCounters ShardedFilter::counters() const {
  FilterCounters out = counters_;
  uint64_t fresh = 0;
  check(MPI_Allreduce(&local_insertions, &fresh, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD),
        "MPI_Allreduce");
  out.insertions += fresh;
  return out;
}

uint64_t ShardedFilter::count_set_bits() const {
  const uint64_t mine =
      detail::count_set_bits(reinterpret_cast<const uint64_t*>(words_), bytes_ / 8, 1);
  uint64_t all = 0;
  check(MPI_Allreduce(&mine, &all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
  return all;
}

}  // namespace gdedup::mpi
