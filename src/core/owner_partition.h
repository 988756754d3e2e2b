// Keys split by the owner of their block, and answers put back in input
// order. Owners hold contiguous ranges of blocks, so two owners never touch
// the same bits: the CPU backend's threads are owners, and so are the shards
// of a backend that spreads a filter over devices or machines. An owner that
// runs its keys in input order gives each key the answer a single sequential
// test_and_set would (docs/FORMAT.md, "Sequential semantics").
#pragma once

#include <cstdint>
#include <vector>

#include "gdedup/layout.h"

namespace gdedup::detail {

// `owners` owners of the `held` blocks from block `first` on of a filter of
// `num_blocks` blocks (all of them, or a part: Filter::part): owner o holds
// the blocks b with floor((b - first) * owners / held) = o, which are the
// range [first_block(o), first_block(o + 1)), held / owners blocks rounded
// up or down.
// An owner as partition_by_owner notes it for each key: the ranks of an MPI
// job are owners too, and jobs run on more than 256 GPUs.
using OwnerIndex = uint16_t;

class BlockOwners {
 public:
  static constexpr unsigned kMaxOwners = 65536;

  // Needs 1 <= owners <= kMaxOwners and num_blocks >= 1.
  BlockOwners(uint64_t num_blocks, unsigned owners)
      : BlockOwners(num_blocks, owners, 0, num_blocks) {}
  // Needs 1 <= owners <= kMaxOwners and 1 <= held <= num_blocks - first.
  BlockOwners(uint64_t num_blocks, unsigned owners, uint64_t first, uint64_t held);

  unsigned owners() const { return owners_; }
  // `block` must be one of the held ones.
  unsigned owner_of_block(uint64_t block) const {
    return static_cast<unsigned>(static_cast<unsigned __int128>(block - first_) * owners_ /
                                 held_);
  }
  unsigned owner_of(uint64_t fingerprint) const {
    return owner_of_block(block_index(fingerprint, num_blocks_));
  }
  // The first block of `owner`; first_block(owners()) is the end of the
  // held blocks.
  uint64_t first_block(unsigned owner) const;

 private:
  uint64_t num_blocks_;
  unsigned owners_;
  uint64_t first_;
  uint64_t held_;
};

// The keys of one slice of a batch bound for one owner, in input order, and
// the owner's answers for them. Reused from batch to batch.
struct OwnerBucket {
  std::vector<uint64_t> fingerprints;
  std::vector<uint8_t> answers;
};

// Puts keys [lo, hi) of `fingerprints` into row[owner], in input order, after
// clearing every bucket's keys; `row` gets owners.owners() buckets. When
// `owner_of_key` is not null, owner_of_key[i] = the owner of key i, which
// scatter_answers needs.
void partition_by_owner(const BlockOwners& owners, const uint64_t* fingerprints, uint64_t lo,
                        uint64_t hi, std::vector<OwnerBucket>& row, OwnerIndex* owner_of_key);

// The inverse for answers: answers[i] for i in [lo, hi) = the next unread
// answer of row[owner_of_key[i]], so each owner's answers return to their
// keys' places.
void scatter_answers(const std::vector<OwnerBucket>& row, const OwnerIndex* owner_of_key,
                     uint64_t lo, uint64_t hi, uint8_t* answers);

}  // namespace gdedup::detail
