// The set of exact mode: every key seen, kept as 84 bits of its 128-bit
// hash, so that a key is taken for a seen one only when two keys share
// those 84 bits (collision_chance), not at a planned rate as in a Bloom
// filter.
//
// A key's 84 bits are the top 84 bits of XXH3-128 of the key. The table is
// 2^b buckets of one cache line (64 bytes); a key's home bucket is the top b
// of its 84 bits, and it lies in its home or one of the next
// kMaxDisplacement buckets (linear probing in Robin Hood order: keys never
// removed, a key moved on by one farther from its home, so a lookup stops
// at a free slot or at a key nearer its home: for an absent key, one cache
// line in the common case). The slot keeps what the bucket does not say
// (quotienting):
//   - from b = 24 up, 8 slots of 64 bits: the 84 - b bits below the home
//     bucket's, and 4 bits of displacement;
//   - below, 4 slots of 128 bits: all 84 bits and a mark of use.
// Either way a stored key keeps its 84 bits at every size, and growth (the
// table doubled and every key placed anew) loses none. What the set holds
// is a function of its keys alone: sorted_keys() is the same for every
// insertion order, batch and growth history.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "gdedup/key_set.h"

namespace gdedup {


class ExactSet {
 public:
  // A narrow slot's bits for the key, beside its 4 bits of displacement:
  // from kKeyBits - kNarrowKeyBits bucket bits up (24), a slot is one word.
  static constexpr unsigned kNarrowKeyBits = 60;
  // The farthest past its home bucket a key may lie; a key that would lie
  // farther makes the table grow.
  static constexpr unsigned kMaxDisplacement = 14;
  // The share of slots in use past which the table doubles.
  static constexpr double kMaxLoad = 0.94;

  // Sized for `expected_keys` (0: the smallest table) without growing.
  // `key_bits`: the width of the keys (their top bits above it must be 0),
  // kKeyBits but in tests, which reach narrow slots in small tables with
  // narrower keys.
  explicit ExactSet(uint64_t expected_keys = 0, unsigned key_bits = kKeyBits);

  // For each key in order: answers[i] = 1 if it was in the set (added
  // before, or earlier in this call), else 0, and it is added. Returns the
  // keys added. Exactly sequential.
  uint64_t test_and_insert(const Key84* keys, size_t n, uint8_t* answers);
  // answers[i] = 1 if keys[i] is in the set; nothing is added.
  void contains(const Key84* keys, size_t n, uint8_t* answers) const;

  uint64_t size() const { return size_; }
  uint64_t bytes() const { return words_.size() * sizeof(uint64_t); }
  unsigned bucket_bits() const { return bucket_bits_; }
  uint64_t slots() const { return (uint64_t{1} << bucket_bits_) * slots_per_bucket(); }
  double load() const { return static_cast<double>(size_) / static_cast<double>(slots()); }
  uint64_t growths() const { return growths_; }

  // Every key, ascending.
  std::vector<Key84> sorted_keys() const;

  // The chance that any two of `keys` distinct keys share their 84 bits
  // (the birthday bound): the chance that exact mode drops one unique key.
  static double collision_chance(uint64_t keys);
  // The bytes a set grown from the smallest table to `keys` keys takes.
  static uint64_t bytes_for(uint64_t keys, unsigned key_bits = kKeyBits);

 private:
  static constexpr unsigned kWordsPerBucket = 8;  // 64 bytes
  // Keys ahead of the one answered whose home bucket is fetched.
  static constexpr size_t kPrefetchAhead = 16;

  void prefetch(Key84 key) const;

  bool narrow() const { return bucket_bits_ + kNarrowKeyBits >= key_bits_; }
  unsigned slots_per_bucket() const { return narrow() ? 8 : 4; }
  uint64_t bucket_mask() const { return (uint64_t{1} << bucket_bits_) - 1; }
  uint64_t home(Key84 key) const { return static_cast<uint64_t>(key >> (key_bits_ - bucket_bits_)); }
  // The bits of `key` below its home bucket's.
  uint64_t remainder(Key84 key) const {
    return static_cast<uint64_t>(key & ((Key84{1} << (key_bits_ - bucket_bits_)) - 1));
  }

  // The key in slot `slot` of `bucket` and how far it lies from its home
  // bucket; false for a free slot.
  bool read(uint64_t bucket, unsigned slot, Key84& key, unsigned& displacement) const;
  void write(uint64_t bucket, unsigned slot, Key84 key, unsigned displacement);
  // How far the key in a used slot lies from its home bucket.
  unsigned displacement_of(uint64_t bucket, unsigned slot) const;
  // Every key, in table order.
  std::vector<Key84> all_keys() const;
  // Where an absent key goes: the first slot on its way that is free or
  // holds a key nearer its home.
  struct Spot {
    uint64_t bucket = 0;
    unsigned slot = 0;
    unsigned displacement = 0;
  };
  // Whether `key` is in the set; where it is not, *spot (if given) says
  // where it goes.
  bool find(Key84 key, Spot* spot) const;
  // Adds `key`, which is not in the set, at `spot` (find's). False when
  // some key (this one or one it moved) would lie past kMaxDisplacement:
  // that key is `left_over`, out of the table, and the table must grow with
  // it.
  bool insert(Key84 key, Spot spot, Key84& left_over);
  // Doubles the table (more when a run is still too long) and places every
  // key anew, `left_over` too.
  void grow(Key84 left_over);
  void resize(unsigned bucket_bits);

  unsigned key_bits_;
  unsigned bucket_bits_ = 0;
  std::vector<uint64_t> words_;
  uint64_t size_ = 0;
  uint64_t growths_ = 0;
};

}  // namespace gdedup
