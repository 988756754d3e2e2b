#include "core/overflow_keys.h"

#include <new>
#include <random>
#include <string>
#include <utility>

#include <xxhash.h>

#include "gdedup/error.h"

namespace gdedup::detail {
namespace {

// Drawn once a process, never stored: where a key lies is not a function
// of the input alone.
uint64_t place_seed() {
  static const uint64_t seed = [] {
    std::random_device device;
    return (static_cast<uint64_t>(device()) << 32) ^ device();
  }();
  return seed;
}

}  // namespace

uint64_t OverflowKeys::slots_for(uint64_t keys) {
  if (keys == 0) return 0;
  uint64_t slots = 16;
  while (slots < 2 * keys) slots *= 2;  // at most half full
  return slots;
}

uint64_t OverflowKeys::place_of(Key84 key) const {
  return XXH3_64bits_withSeed(&key, sizeof key, place_seed()) & (slots_.size() - 1);
}

bool OverflowKeys::contains(Key84 key) const {
  if (count_ == 0) return false;
  const uint64_t mask = slots_.size() - 1;
  for (uint64_t at = place_of(key);; at = (at + 1) & mask) {
    if (slots_[at] == key) return true;
    if (slots_[at] == kFree) return false;
  }
}

void OverflowKeys::resize(uint64_t keys) {
  const uint64_t slots = slots_for(keys);
  std::vector<Key84> old;
  try {
    old = std::exchange(slots_, std::vector<Key84>(slots, kFree));
  } catch (const std::bad_alloc&) {
    throw Error("the system refused " + std::to_string(slots * sizeof(Key84)) +
                    " bytes of memory for the exact set's keys past their home buckets",
                ErrorKind::out_of_memory, slots * sizeof(Key84));
  }
  for (const Key84 key : old) {
    if (key != kFree) put(key);
  }
}

void OverflowKeys::put(Key84 key) {
  const uint64_t mask = slots_.size() - 1;
  uint64_t at = place_of(key);
  while (slots_[at] != kFree) at = (at + 1) & mask;
  slots_[at] = key;
}

void OverflowKeys::insert(Key84 key) {
  if (slots_for(count_ + 1) != slots_.size()) resize(count_ + 1);
  put(key);
  ++count_;
}

bool OverflowKeys::erase(Key84 key) {
  if (count_ == 0) return false;
  const uint64_t mask = slots_.size() - 1;
  uint64_t hole = place_of(key);
  for (;; hole = (hole + 1) & mask) {
    if (slots_[hole] == kFree) return false;
    if (slots_[hole] == key) break;
  }
  // Backward shift: a key after the hole whose place is not between the
  // hole and it (cyclically) moves into the hole, so that no lookup meets a
  // free slot before its key.
  for (uint64_t next = (hole + 1) & mask; slots_[next] != kFree; next = (next + 1) & mask) {
    const uint64_t place = place_of(slots_[next]);
    const bool stays = hole < next ? (place > hole && place <= next)
                                   : (place > hole || place <= next);
    if (stays) continue;
    slots_[hole] = slots_[next];
    hole = next;
  }
  slots_[hole] = kFree;
  --count_;
  // Fewer slots where fewer keys need them: the slots stay a function of
  // the count.
  if (slots_for(count_) != slots_.size()) {
    try {
      resize(count_);
    } catch (const Error&) {
      // Kept larger (bytes() says so): every key is still found.
    }
  }
  return true;
}

}  // namespace gdedup::detail
