// The device set's slots (kernels/set_kernels.cu): plain C++ as well as CUDA,
// so the CPU tests check the very encoding the kernels use.
//
// A table of 2^b slots (kMinSetLog2 <= b <= kMaxSetLog2), each a 64-bit key
// word and a 32-bit position word. A key's place comes from its salted
// value: the key through a permutation of the 84-bit values keyed by the
// table's salt (salted, below), drawn at random for each set. Its home slot
// is the top b bits of the salted value; it sits in the first free slot at
// or after its home (linear probing, wrapping round), at most
// max_displacement(b) slots on. Its word holds the salted value quotiented:
// the 84 - b bits below the home, and above them its displacement + 1, in
// the b - 20 bits left, so that 0 is an empty slot and the salted value,
// and so the key, comes back whole from the word and the slot's index
// alone. Every doubling of the table frees one more bit for the
// displacement: 2 slots at 2^22, 14 at 2^24, 62 at 2^26, 254 at 2^28.
//
// Why salted: the keys are the top bits of XXH3-128 with a public seed, so
// inputs whose keys share their top bits can be searched for (each shared
// bit doubles the search). Homes taken from the keys' own top bits would
// put such keys in one probe run, past any displacement a word holds, and
// the table would double until it failed. Through a secret permutation
// they spread as random keys do, so a table grows only with its load. The
// layout changes no answer and no file: files and checkpoints take the
// keys back into a KeySet and write them sorted.
//
// The position word says where a key stands in the batch being answered:
//   kPositionFree  (all ones) an empty slot;
//   kPositionOld   (0)        a key present before this batch;
//   p + 1                     a key first added by this batch, p the lowest
//                             position in the batch that holds it.
// A batch lowers p + 1 with atomic minima (first pass), then the key at
// that position answers new and sets the word to kPositionOld (second
// pass); every other position holding the key answers present.
#pragma once

#include <cstdint>

#include "gdedup/key_set.h"
#include "gdedup/layout.h"

namespace gdedup::kernels {

constexpr uint32_t kMinSetLog2 = 22;
// 2^40 slots take 12 TiB: beyond any device.
constexpr uint32_t kMaxSetLog2 = 40;
constexpr uint32_t kPositionFree = 0xffffffffu;
constexpr uint32_t kPositionOld = 0;

// Bits of the key below its home: the remainder a slot stores.
GDEDUP_HD uint32_t remainder_bits(uint32_t log2_slots) { return kKeyBits - log2_slots; }

// The salt of a table: the round keys of a four-round Feistel network over
// the key's two 42-bit halves. Any round function gives a permutation; a
// mixing one keyed by secret numbers gives homes nobody can aim at.
constexpr uint32_t kSaltRounds = 4;
struct SlotSalt {
  uint64_t round[kSaltRounds];
};

constexpr uint32_t kHalfBits = kKeyBits / 2;
constexpr uint64_t kHalfMask = (uint64_t{1} << kHalfBits) - 1;

GDEDUP_HD uint64_t salt_round(uint64_t half, uint64_t round_key) {
  uint64_t z = (half ^ round_key) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 31)) * 0x94d049bb133111ebull;
  return (z ^ (z >> 29)) & kHalfMask;
}

// The key's salted value: where the table places it.
GDEDUP_HD Key84 salted(Key84 key, const SlotSalt& salt) {
  uint64_t left = static_cast<uint64_t>(key >> kHalfBits);
  uint64_t right = static_cast<uint64_t>(key) & kHalfMask;
  for (uint32_t r = 0; r < kSaltRounds; ++r) {
    const uint64_t next = left ^ salt_round(right, salt.round[r]);
    left = right;
    right = next;
  }
  return (static_cast<Key84>(left) << kHalfBits) | right;
}

// The key whose salted value is `value`.
GDEDUP_HD Key84 unsalted(Key84 value, const SlotSalt& salt) {
  uint64_t left = static_cast<uint64_t>(value >> kHalfBits);
  uint64_t right = static_cast<uint64_t>(value) & kHalfMask;
  for (uint32_t r = kSaltRounds; r-- > 0;) {
    const uint64_t before = right ^ salt_round(left, salt.round[r]);
    right = left;
    left = before;
  }
  return (static_cast<Key84>(left) << kHalfBits) | right;
}

GDEDUP_HD uint64_t max_displacement(uint32_t log2_slots) {
  return (uint64_t{1} << (log2_slots - (kKeyBits - 64))) - 2;
}

// The home slot of a salted value.
GDEDUP_HD uint64_t home_slot(Key84 value, uint32_t log2_slots) {
  return static_cast<uint64_t>(value >> remainder_bits(log2_slots));
}

// The word of a salted value at `displacement` slots past its home.
GDEDUP_HD uint64_t slot_word(Key84 value, uint64_t displacement, uint32_t log2_slots) {
  const uint32_t r = remainder_bits(log2_slots);
  const uint64_t remainder = static_cast<uint64_t>(value) & ((uint64_t{1} << r) - 1);
  return ((displacement + 1) << r) | remainder;
}

// The salted value a non-empty `word` at slot `slot` holds.
GDEDUP_HD Key84 slot_value(uint64_t word, uint64_t slot, uint32_t log2_slots) {
  const uint32_t r = remainder_bits(log2_slots);
  const uint64_t displacement = (word >> r) - 1;
  const uint64_t home = (slot - displacement) & ((uint64_t{1} << log2_slots) - 1);
  return (static_cast<Key84>(home) << r) | (word & ((uint64_t{1} << r) - 1));
}

}  // namespace gdedup::kernels
