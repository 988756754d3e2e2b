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

void partition_by_owner(const BlockOwners& owners, const uint64_t* fingerprints, uint64_t lo,
                        uint64_t hi, std::vector<OwnerBucket>& row, OwnerIndex* owner_of_key) {
  const unsigned parts = owners.owners();
  row.resize(parts);
  for (OwnerBucket& b : row) {
    b.fingerprints.clear();
    // A fair share and an eighth more keeps most buckets from growing
    // again, and the row near the keys' size with thousands of owners.
    const uint64_t share = (hi - lo) / parts;
    b.fingerprints.reserve(share + share / 8 + 16);
  }
  for (uint64_t i = lo; i < hi; ++i) {
    const uint64_t fp = fingerprints[i];
    const unsigned owner = owners.owner_of(fp);
    row[owner].fingerprints.push_back(fp);
    if (owner_of_key != nullptr) owner_of_key[i] = static_cast<OwnerIndex>(owner);
  }
}

void scatter_answers(const std::vector<OwnerBucket>& row, const OwnerIndex* owner_of_key,
                     uint64_t lo, uint64_t hi, uint8_t* answers) {
  std::vector<const uint8_t*> next(row.size());
  for (size_t o = 0; o < row.size(); ++o) next[o] = row[o].answers.data();
  for (uint64_t i = lo; i < hi; ++i) answers[i] = *next[owner_of_key[i]]++;
}

}  // namespace gdedup::detail
