#include "core/owner_partition.h"

#include <string>

#include "gdedup/error.h"

namespace gdedup::detail {

BlockOwners::BlockOwners(uint64_t num_blocks, unsigned owners, uint64_t first, uint64_t held)
    : num_blocks_(num_blocks), owners_(owners), first_(first), held_(held) {
  if (held == 0 || first > num_blocks || held > num_blocks - first || owners == 0 ||
      owners > kMaxOwners) {
    throw Error("cannot split " + std::to_string(held) + " blocks from block " +
                std::to_string(first) + " of " + std::to_string(num_blocks) + " among " +
                std::to_string(owners) + " owners; 1 to " + std::to_string(kMaxOwners) +
                " owners of at least one block of the filter are possible");
  }
}

uint64_t BlockOwners::first_block(unsigned owner) const {
  // first + the least b with b * owners >= owner * held.
  const unsigned __int128 scaled = static_cast<unsigned __int128>(owner) * held_;
  return first_ + static_cast<uint64_t>((scaled + owners_ - 1) / owners_);
}

}  // namespace gdedup::detail
