// One round of the sharded filter (docs/SCALE-OUT.md): every rank hands in
// the fingerprints the round applies of its piece, each goes to the rank
// that owns its block (one MPI_Alltoallv, 8 bytes a key; an exact set's
// 84-bit keys go by their ranges, mpi/key_ranges.h, 16 bytes), each owner applies
// what it received in the sources' input order (mpi/round_plan.h), and the
// answers go back (a second MPI_Alltoallv, 1 byte a key) to be put in the
// keys' order. An owner that applies its keys in input order gives each the
// answer of one process's sequential test_and_set.
#pragma once

#include <cstdint>
#include <functional>
#include <type_traits>
#include <vector>

#include <mpi.h>

#include "core/owner_partition.h"
#include "gdedup/key_set.h"
#include "mpi/key_ranges.h"

namespace gdedup::mpi {

// `Owners`: detail::BlockOwners (a Bloom filter's 64-bit fingerprints by
// their blocks) or KeyRanges (an exact set's Key84 by their values).
template <typename Owners>
class KeyExchangeOf {
 public:
  using Key = std::conditional_t<std::is_same_v<Owners, KeyRanges>, Key84, uint64_t>;
  // Applies the `count` keys this rank owns, in the order given, answering
  // into `answers` (null when no answers are wanted); returns what the
  // caller counts (the keys found new).
  using Apply = std::function<uint64_t(const Key* keys, uint64_t count, uint8_t* answers)>;

  explicit KeyExchangeOf(const Owners& owners);
  ~KeyExchangeOf();
  KeyExchangeOf(const KeyExchangeOf&) = delete;
  KeyExchangeOf& operator=(const KeyExchangeOf&) = delete;
  // The owners change when a growing filter adds a layer.
  void set_owners(const Owners& owners) { owners_ = owners; }

  // Collective. Sends the `count` keys at `fingerprints` to their owners,
  // runs `apply` on the keys this rank received from each rank in `order`
  // (the same on every rank: the sending ranks, in input order; the others
  // send none), and, when `answered` (which every rank must say alike),
  // sets answers[i] to the owner's answer for key i. Returns the sum of
  // this rank's apply() results.
  uint64_t run(const Key* fingerprints, uint64_t count, bool answered, uint8_t* answers,
               const std::vector<unsigned>& order, const Apply& apply);

 private:
  Owners owners_;
  MPI_Datatype key_type_;  // one key: 8 bytes or 16
  // Reused from round to round.
  std::vector<detail::OwnerBucketOf<Key>> row_;  // this rank's keys by owner
  std::vector<detail::OwnerIndex> owner_of_key_;
  std::vector<Key> sent_keys_;      // row_ laid end to end
  std::vector<Key> received_keys_;  // by source rank, rank 0's first
  std::vector<uint8_t> received_answers_;
  std::vector<uint8_t> sent_answers_;
};

using KeyExchange = KeyExchangeOf<detail::BlockOwners>;
using SetKeyExchange = KeyExchangeOf<KeyRanges>;

}  // namespace gdedup::mpi
