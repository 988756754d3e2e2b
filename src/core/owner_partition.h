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
// the owner's answers for them. Reused from batch to batch. The keys are a
// Bloom filter's 64-bit fingerprints, or an exact set's 84-bit keys
// (Key84) that the ranks of an MPI job own by ranges (mpi/key_ranges.h).
template <typename Key>
struct OwnerBucketOf {
  std::vector<Key> fingerprints;
  std::vector<uint8_t> answers;
};
using OwnerBucket = OwnerBucketOf<uint64_t>;

// Puts keys [lo, hi) of `fingerprints` into row[owner], in input order, after
// clearing every bucket's keys; `row` gets owners.owners() buckets. When
// `owner_of_key` is not null, owner_of_key[i] = the owner of key i, which
// scatter_answers needs. `Owners` is BlockOwners, or any class with its
// owners() and owner_of(key).
template <typename Owners, typename Key>
void partition_by_owner(const Owners& owners, const Key* fingerprints, uint64_t lo, uint64_t hi,
                        std::vector<OwnerBucketOf<Key>>& row, OwnerIndex* owner_of_key) {
  const unsigned parts = owners.owners();
  row.resize(parts);
  for (OwnerBucketOf<Key>& b : row) {
    b.fingerprints.clear();
    // A fair share and an eighth more keeps most buckets from growing
    // again, and the row near the keys' size with thousands of owners.
    const uint64_t share = (hi - lo) / parts;
    b.fingerprints.reserve(share + share / 8 + 16);
  }
  for (uint64_t i = lo; i < hi; ++i) {
    const Key fp = fingerprints[i];
    const unsigned owner = owners.owner_of(fp);
    row[owner].fingerprints.push_back(fp);
    if (owner_of_key != nullptr) owner_of_key[i] = static_cast<OwnerIndex>(owner);
  }
}

// The inverse for answers: answers[i] for i in [lo, hi) = the next unread
// answer of row[owner_of_key[i]], so each owner's answers return to their
// keys' places.
template <typename Key>
void scatter_answers(const std::vector<OwnerBucketOf<Key>>& row, const OwnerIndex* owner_of_key,
                     uint64_t lo, uint64_t hi, uint8_t* answers) {
  std::vector<const uint8_t*> next(row.size());
  for (size_t o = 0; o < row.size(); ++o) next[o] = row[o].answers.data();
  for (uint64_t i = lo; i < hi; ++i) answers[i] = *next[owner_of_key[i]]++;
}

}  // namespace gdedup::detail
