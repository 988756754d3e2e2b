// The device set's slots (kernels/set_kernels.cu): plain C++ as well as CUDA,
// so the CPU tests check the very encoding the kernels use.
//
// A table of 2^b slots (kMinSetLog2 <= b <= kMaxSetLog2), each a 64-bit key
// word and a 32-bit position word. A key's home slot is its top b bits; it
// sits in the first free slot at or after its home (linear probing, wrapping
// round), at most max_displacement(b) slots on. Its word holds the key
// quotiented: the 84 - b bits below the home, and above them its
// displacement + 1, in the b - 20 bits left, so that 0 is an empty slot and
// the key comes back whole from the word and the slot's index alone. Every
// doubling of the table frees one more bit for the displacement: 2 slots
// at 2^22, 14 at 2^24, 62 at 2^26, 254 at 2^28.
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

GDEDUP_HD uint64_t max_displacement(uint32_t log2_slots) {
  return (uint64_t{1} << (log2_slots - (kKeyBits - 64))) - 2;
}

GDEDUP_HD uint64_t home_slot(Key84 key, uint32_t log2_slots) {
  return static_cast<uint64_t>(key >> remainder_bits(log2_slots));
}

// The word of `key` at `displacement` slots past its home.
GDEDUP_HD uint64_t slot_word(Key84 key, uint64_t displacement, uint32_t log2_slots) {
  const uint32_t r = remainder_bits(log2_slots);
  const uint64_t remainder = static_cast<uint64_t>(key) & ((uint64_t{1} << r) - 1);
  return ((displacement + 1) << r) | remainder;
}

// The key a non-empty `word` at slot `slot` holds.
GDEDUP_HD Key84 slot_key(uint64_t word, uint64_t slot, uint32_t log2_slots) {
  const uint32_t r = remainder_bits(log2_slots);
  const uint64_t displacement = (word >> r) - 1;
  const uint64_t home = (slot - displacement) & ((uint64_t{1} << log2_slots) - 1);
  return (static_cast<Key84>(home) << r) | (word & ((uint64_t{1} << r) - 1));
}

}  // namespace gdedup::kernels
