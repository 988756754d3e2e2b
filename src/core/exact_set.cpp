#include "core/exact_set.h"

#include <algorithm>
#include <cmath>

#include <xxhash.h>

#include "gdedup/error.h"

namespace gdedup {
namespace {

// The smallest table: 16 buckets of 64 bytes.
constexpr unsigned kMinBucketBits = 4;
// 2^40 buckets of 64 bytes is 64 TiB: far past any machine.
constexpr unsigned kMaxBucketBits = 40;
// A wide slot's first word: the key's top bits and this mark of use.
constexpr uint64_t kUsed = uint64_t{1} << 63;

}  // namespace

Key84 key84(const void* key, size_t length, uint64_t seed) {
  const XXH128_hash_t h = XXH3_128bits_withSeed(key, length, seed);
  return (static_cast<Key84>(h.high64) << 20) | (h.low64 >> 44);
}

ExactSet::ExactSet(uint64_t expected_keys, unsigned key_bits) : key_bits_(key_bits) {
  if (key_bits_ > kKeyBits || key_bits_ < kNarrowKeyBits + kMinBucketBits) {
    throw UsageError("an exact set's keys have " + std::to_string(kNarrowKeyBits + kMinBucketBits) +
                     " to " + std::to_string(kKeyBits) + " bits, not " + std::to_string(key_bits));
  }
  bucket_bits_ = kMinBucketBits;
  // Within kMaxLoad with room to spare, so that a right-sized set does not
  // grow at its last keys.
  while (bucket_bits_ < kMaxBucketBits &&
         static_cast<double>(expected_keys) > 0.8 * kMaxLoad * static_cast<double>(slots())) {
    ++bucket_bits_;
  }
  resize(bucket_bits_);
}

void ExactSet::resize(unsigned bucket_bits) {
  if (bucket_bits > kMaxBucketBits) {
    throw Error("the exact set would need more than 2^" + std::to_string(kMaxBucketBits) +
                    " buckets of 64 bytes",
                ErrorKind::out_of_memory);
  }
  bucket_bits_ = bucket_bits;
  words_.assign((uint64_t{1} << bucket_bits) * kWordsPerBucket, 0);
}

bool ExactSet::read(uint64_t bucket, unsigned slot, Key84& key, unsigned& displacement) const {
  if (narrow()) {
    const uint64_t word = words_[bucket * kWordsPerBucket + slot];
    if (word == 0) return false;
    displacement = static_cast<unsigned>(word & 15) - 1;
    const uint64_t home = (bucket - displacement) & bucket_mask();
    key = (static_cast<Key84>(home) << (key_bits_ - bucket_bits_)) | (word >> 4);
    return true;
  }
  const uint64_t* words = &words_[bucket * kWordsPerBucket + 2 * slot];
  if (words[0] == 0) return false;
  key = (static_cast<Key84>(words[0] & ~kUsed) << 64) | words[1];
  displacement = static_cast<unsigned>((bucket - home(key)) & bucket_mask());
  return true;
}

void ExactSet::write(uint64_t bucket, unsigned slot, Key84 key, unsigned displacement) {
  if (narrow()) {
    words_[bucket * kWordsPerBucket + slot] = (remainder(key) << 4) | (displacement + 1);
    return;
  }
  uint64_t* words = &words_[bucket * kWordsPerBucket + 2 * slot];
  words[0] = static_cast<uint64_t>(key >> 64) | kUsed;
  words[1] = static_cast<uint64_t>(key);
}

unsigned ExactSet::displacement_of(uint64_t bucket, unsigned slot) const {
  if (narrow()) return static_cast<unsigned>(words_[bucket * kWordsPerBucket + slot] & 15) - 1;
  const uint64_t* words = &words_[bucket * kWordsPerBucket + 2 * slot];
  const Key84 key = (static_cast<Key84>(words[0] & ~kUsed) << 64) | words[1];
  return static_cast<unsigned>((bucket - home(key)) & bucket_mask());
}

bool ExactSet::find(Key84 key, Spot* spot) const {
  const uint64_t start = home(key);
  const unsigned per_bucket = slots_per_bucket();
  // What the key's slot holds: a narrow slot's remainder (its displacement
  // added below), or a wide slot's two words.
  const uint64_t rest = narrow() ? remainder(key) << 4 : 0;
  const uint64_t top = static_cast<uint64_t>(key >> 64) | kUsed;
  const uint64_t low = static_cast<uint64_t>(key);
  bool spotted = false;
  for (unsigned d = 0; d <= kMaxDisplacement; ++d) {
    const uint64_t bucket = (start + d) & bucket_mask();
    const uint64_t* words = &words_[bucket * kWordsPerBucket];
    // Robin Hood order: the key would lie before a free slot, and before
    // any key nearer its own home than this one would be here; the first
    // such slot is where it goes.
    for (unsigned s = 0; s < per_bucket; ++s) {
      bool free_or_nearer = false;
      if (narrow()) {
        const uint64_t word = words[s];
        if (word == (rest | (d + 1))) return true;
        free_or_nearer = word == 0 || (word & 15) - 1 < d;
      } else {
        if (words[2 * s] == top && words[2 * s + 1] == low) return true;
        free_or_nearer = words[2 * s] == 0 || displacement_of(bucket, s) < d;
      }
      if (free_or_nearer && !spotted) {
        spotted = true;
        if (spot != nullptr) *spot = Spot{bucket, s, d};
      }
      if (narrow() ? words[s] == 0 : words[2 * s] == 0) return false;
    }
    if (spotted) return false;
  }
  if (spot != nullptr) *spot = Spot{(start + kMaxDisplacement + 1) & bucket_mask(), 0,
                                    kMaxDisplacement + 1};
  return false;
}

bool ExactSet::insert(Key84 key, Spot spot, Key84& left_over) {
  // Robin Hood: a key takes the slot of one nearer its home, which then
  // goes on from there, so that no key lies far from home while others lie
  // near theirs, and a run ends early.
  const unsigned per_bucket = slots_per_bucket();
  uint64_t bucket = spot.bucket;
  unsigned d = spot.displacement;
  unsigned first = spot.slot;
  while (d <= kMaxDisplacement) {
    const uint64_t* words = &words_[bucket * kWordsPerBucket];
    for (unsigned s = first; s < per_bucket; ++s) {
      if (words[narrow() ? s : 2 * s] == 0) {
        write(bucket, s, key, d);
        ++size_;
        return true;
      }
      if (displacement_of(bucket, s) < d) {
        Key84 resident;
        unsigned displacement = 0;
        read(bucket, s, resident, displacement);
        write(bucket, s, key, d);
        key = resident;
        d = displacement;
      }
    }
    bucket = (bucket + 1) & bucket_mask();
    ++d;
    first = 0;
  }
  left_over = key;
  return false;
}

void ExactSet::grow(Key84 left_over) {
  std::vector<Key84> keys = all_keys();
  keys.push_back(left_over);
  unsigned bits = bucket_bits_ + 1;
  for (;;) {
    resize(bits);
    size_ = 0;
    bool placed = true;
    for (const Key84 key : keys) {
      // Distinct keys: each goes in from its home, with no lookup first.
      Key84 again;
      if (!insert(key, Spot{home(key), 0, 0}, again)) {
        placed = false;
        break;
      }
    }
    if (placed) break;
    ++bits;  // a run too long even in the doubled table: double again
  }
  ++growths_;
}

void ExactSet::prefetch(Key84 key) const {
  __builtin_prefetch(&words_[home(key) * kWordsPerBucket]);
}

uint64_t ExactSet::test_and_insert(const Key84* keys, size_t n, uint8_t* answers) {
  uint64_t added = 0;
  for (size_t i = 0; i < n; ++i) {
    // The home buckets of the keys a little ahead are fetched while this
    // one is answered: the answers stay in order, the misses overlap.
    if (i + kPrefetchAhead < n) prefetch(keys[i + kPrefetchAhead]);
    Spot spot;
    if (find(keys[i], &spot)) {
      answers[i] = 1;
      continue;
    }
    answers[i] = 0;
    ++added;
    Key84 left_over;
    if (static_cast<double>(size_ + 1) > kMaxLoad * static_cast<double>(slots())) {
      grow(keys[i]);
    } else if (!insert(keys[i], spot, left_over)) {
      grow(left_over);
    }
  }
  return added;
}

void ExactSet::contains(const Key84* keys, size_t n, uint8_t* answers) const {
  for (size_t i = 0; i < n; ++i) {
    if (i + kPrefetchAhead < n) prefetch(keys[i + kPrefetchAhead]);
    answers[i] = find(keys[i], nullptr) ? 1 : 0;
  }
}

std::vector<Key84> ExactSet::sorted_keys() const {
  std::vector<Key84> keys = all_keys();
  std::sort(keys.begin(), keys.end());
  return keys;
}

std::vector<Key84> ExactSet::all_keys() const {
  std::vector<Key84> keys;
  keys.reserve(size_ + 1);
  const unsigned per_bucket = slots_per_bucket();
  const uint64_t buckets = uint64_t{1} << bucket_bits_;
  for (uint64_t bucket = 0; bucket < buckets; ++bucket) {
    for (unsigned s = 0; s < per_bucket; ++s) {
      Key84 key;
      unsigned displacement = 0;
      if (read(bucket, s, key, displacement)) keys.push_back(key);
    }
  }
  return keys;
}

uint64_t ExactSet::bytes_for(uint64_t keys, unsigned key_bits) {
  // Growth doubles the table when a key would take it past kMaxLoad.
  unsigned bits = kMinBucketBits;
  for (;;) {
    const uint64_t per_bucket = bits + kNarrowKeyBits >= key_bits ? 8 : 4;
    const double slots = std::ldexp(static_cast<double>(per_bucket), static_cast<int>(bits));
    if (static_cast<double>(keys) <= kMaxLoad * slots || bits >= kMaxBucketBits) break;
    ++bits;
  }
  return (uint64_t{1} << bits) * kWordsPerBucket * sizeof(uint64_t);
}

double ExactSet::collision_chance(uint64_t keys) {
  // 1 - exp(-n(n-1) / 2^(bits+1)), without losing small values to rounding.
  const double n = static_cast<double>(keys);
  return -std::expm1(-n * (n - 1) / std::ldexp(1.0, kKeyBits + 1));
}

}  // namespace gdedup
