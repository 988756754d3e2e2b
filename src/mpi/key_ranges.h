// How the ranks share an exact set (docs/SCALE-OUT.md, "Exact mode"): rank r
// of R owns the keys whose top 64 bits t have floor(t * R / 2^64) = r, a
// range of key values that ascends with r, so that the ranks' keys, each
// rank's ascending, laid end to end in rank order are all keys ascending.
//
// A rank's set does not hold the keys as they are: its table finds a key's
// bucket from the key's top bits (core/exact_set.h), which a rank's keys
// share, so they would crowd 1/R of its buckets. It holds each key's place
// in the rank's range instead, spread over all 84 bits: the low 64 bits of
// t * R (the high ones are the rank) above the key's low 20 bits. The map is
// one to one and keeps the order of a rank's keys, so the rank's set
// answers as a set of the keys themselves would, and its keys, ascending,
// map back to its keys ascending.
#pragma once

#include <cstdint>

#include "gdedup/key_set.h"

namespace gdedup::mpi {

class KeyRanges {
 public:
  // Needs ranks >= 1.
  explicit KeyRanges(unsigned ranks) : ranks_(ranks) {}

  unsigned owners() const { return ranks_; }
  unsigned owner_of(Key84 key) const { return static_cast<unsigned>(scaled(key) >> 64); }
  // The key as its owner's set holds it.
  Key84 local(Key84 key) const {
    return (static_cast<Key84>(static_cast<uint64_t>(scaled(key))) << kLowBits) |
           (key & kLowMask);
  }
  // The key that `owner` holds as `local`.
  Key84 global(Key84 local, unsigned owner) const {
    const unsigned __int128 product =
        (static_cast<unsigned __int128>(owner) << 64) | static_cast<uint64_t>(local >> kLowBits);
    return (static_cast<Key84>(product / ranks_) << kLowBits) | (local & kLowMask);
  }

 private:
  static constexpr unsigned kLowBits = kKeyBits - 64;
  static constexpr Key84 kLowMask = (Key84{1} << kLowBits) - 1;
  // t * R: the owner above, the place in its range below.
  unsigned __int128 scaled(Key84 key) const {
    return static_cast<unsigned __int128>(static_cast<uint64_t>(key >> kLowBits)) * ranks_;
  }

  unsigned ranks_;
};

}  // namespace gdedup::mpi
