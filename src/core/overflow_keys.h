// The keys a table of the exact set (core/exact_set.h) cannot hold within
// kMaxDisplacement buckets of their home: keys whose hashes share their top
// bits. Hashed keys essentially never come here (the load rule keeps runs
// short), but such keys can be searched for, since the hash and its seed
// are public: 130 URLs sharing their top 20 bits take 6 s of one core. If a
// run too long made the table double, as it did, each bit they share would
// double the memory of the set (a 2.25 MiB set for those 130 keys, about
// 1 GiB at 29 bits); here they take 16 bytes a slot instead, and the table
// grows by its load alone (docs/HARDENING.md).
//
// Open addressing with linear probing, at most half full, a key's place
// chosen by XXH3-64 of it with a seed drawn once a process: an input cannot
// aim at a place it does not know, so no input makes a run long here
// either. Where a key lies changes no answer and no byte of any file (a set
// file holds the keys sorted); the slots are a function of the key count
// alone (slots_for: the area shrinks as keys are erased, too), so the bytes
// a set reports do not depend on the seed.
#pragma once

#include <cstdint>
#include <vector>

#include "gdedup/key_set.h"

namespace gdedup::detail {

class OverflowKeys {
 public:
  bool empty() const { return count_ == 0; }
  uint64_t size() const { return count_; }
  uint64_t bytes() const { return slots_.size() * sizeof(Key84); }
  // The bytes the area takes with `keys` keys.
  static uint64_t bytes_for(uint64_t keys) { return slots_for(keys) * sizeof(Key84); }

  bool contains(Key84 key) const;
  // Adds `key`, not in the area. Throws Error of kind out_of_memory, with
  // the area as it was, where the system refuses its larger slots.
  void insert(Key84 key);
  // Removes `key` if it is there; false if it was not.
  bool erase(Key84 key);

  template <class F>
  void for_each(F&& f) const {
    for (const Key84 key : slots_) {
      if (key != kFree) f(key);
    }
  }

 private:
  // No key has all 128 bits set (keys have at most kKeyBits).
  static constexpr Key84 kFree = ~Key84{0};

  static uint64_t slots_for(uint64_t keys);
  uint64_t place_of(Key84 key) const;
  // The area at slots_for(keys) slots, every key placed anew.
  void resize(uint64_t keys);
  // Writes `key` at the first free slot from its place.
  void put(Key84 key);

  std::vector<Key84> slots_;
  uint64_t count_ = 0;
};

}  // namespace gdedup::detail
