// ShardedFilter (gdedup/mpi.h): this rank's blocks, a Filter::part, and the
// whole filter's counters and bit count summed over the ranks.
// Saving and loading are in sharded_filter_file.cpp.
#include <mpi.h>

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

namespace {

// This rank's blocks of a filter of `params`.
Filter rank_part(const FilterParams& params) {
  params.validate();
  const detail::BlockOwners owners = block_owners(params.num_blocks);
  const unsigned rank = rank_info().rank;
  const uint64_t first = owners.first_block(rank);
  return Filter::part(params, first, owners.first_block(rank + 1) - first);
}

}  // namespace

ShardedFilter::ShardedFilter(const FilterParams& params, const FilterCounters& counters)
    : counters_(counters), part_(rank_part(params)) {}

FilterCounters ShardedFilter::counters() const {
  FilterCounters out = counters_;
  const uint64_t mine = part_.counters().insertions;
  uint64_t fresh = 0;
  check(MPI_Allreduce(&mine, &fresh, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
  out.insertions += fresh;
  return out;
}

uint64_t ShardedFilter::count_set_bits() const {
  const uint64_t mine = part_.count_set_bits();
  uint64_t all = 0;
  check(MPI_Allreduce(&mine, &all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
  return all;
}

}  // namespace gdedup::mpi
