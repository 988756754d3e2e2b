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
  resize(kMinBucketBits);
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

bool ExactSet::load_key(uint64_t bucket, uint64_t word, Key84& key) const {
  if (narrow()) {
    const uint64_t slot = words_[word];
    if (slot == 0) return false;
    const uint64_t displacement = (slot & 15) - 1;
    const uint64_t home = (bucket - displacement) & bucket_mask();
    key = (static_cast<Key84>(home) << (key_bits_ - bucket_bits_)) | (slot >> 4);
    return true;
  }
  const uint64_t top = words_[word];
  if (top == 0) return false;
  key = (static_cast<Key84>(top & ~kUsed) << 64) | words_[word + 1];
  return true;
}

bool ExactSet::locate(Key84 key, Place& place) const {
  const uint64_t start = home(key);
  const unsigned per_bucket = slots_per_bucket();
  const unsigned slot_words = kWordsPerBucket / per_bucket;
  // What the slot of `key` holds at each displacement: the narrow slot's
  // remainder and displacement, or the wide slot's two words.
  const uint64_t rest = narrow() ? remainder(key) << 4 : 0;
  const uint64_t top = static_cast<uint64_t>(key >> 64) | kUsed;
  const uint64_t low = static_cast<uint64_t>(key);
  for (unsigned d = 0; d <= kMaxDisplacement; ++d) {
    const uint64_t bucket = (start + d) & bucket_mask();
    const uint64_t first = bucket * kWordsPerBucket;
    for (unsigned s = 0; s < per_bucket; ++s) {
      const uint64_t word = first + s * slot_words;
      const uint64_t slot = words_[word];
      if (slot == 0) {
        // Keys are placed at the first free slot on their way and never
        // removed: none of this key's lies past a free slot.
        place = Place{word, d, false};
        return true;
      }
      const bool same = narrow() ? slot == (rest | (d + 1))
                                 : slot == top && words_[word + 1] == low;
      if (same) {
        place = Place{word, d, true};
        return true;
      }
    }
  }
  return false;
}

void ExactSet::store(Key84 key, const Place& place) {
  if (narrow()) {
    words_[place.word] = (remainder(key) << 4) | (place.displacement + 1);
  } else {
    words_[place.word] = static_cast<uint64_t>(key >> 64) | kUsed;
    words_[place.word + 1] = static_cast<uint64_t>(key);
  }
  ++size_;
}

void ExactSet::grow() {
  const std::vector<Key84> keys = sorted_keys();
  unsigned bits = bucket_bits_ + 1;
  for (;;) {
    resize(bits);
    size_ = 0;
    bool placed = true;
    for (const Key84 key : keys) {
      Place place;
      if (!locate(key, place)) {
        placed = false;
        break;
      }
      store(key, place);
    }
    if (placed) break;
    ++bits;  // a run too long even in the doubled table: double again
  }
  ++growths_;
}

uint64_t ExactSet::test_and_insert(const Key84* keys, size_t n, uint8_t* answers) {
  uint64_t added = 0;
  for (size_t i = 0; i < n; ++i) {
    if (static_cast<double>(size_ + 1) > kMaxLoad * static_cast<double>(slots())) grow();
    Place place;
    while (!locate(keys[i], place)) grow();
    answers[i] = place.found ? 1 : 0;
    if (!place.found) {
      store(keys[i], place);
      ++added;
    }
  }
  return added;
}

void ExactSet::contains(const Key84* keys, size_t n, uint8_t* answers) const {
  for (size_t i = 0; i < n; ++i) {
    Place place;
    answers[i] = locate(keys[i], place) && place.found ? 1 : 0;
  }
}

std::vector<Key84> ExactSet::sorted_keys() const {
  std::vector<Key84> keys;
  keys.reserve(size_);
  const unsigned per_bucket = slots_per_bucket();
  const unsigned slot_words = kWordsPerBucket / per_bucket;
  const uint64_t buckets = uint64_t{1} << bucket_bits_;
  for (uint64_t bucket = 0; bucket < buckets; ++bucket) {
    for (unsigned s = 0; s < per_bucket; ++s) {
      Key84 key;
      if (load_key(bucket, bucket * kWordsPerBucket + s * slot_words, key)) keys.push_back(key);
    }
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

double ExactSet::collision_chance(uint64_t keys) {
  // 1 - exp(-n(n-1) / 2^(bits+1)), without losing small values to rounding.
  const double n = static_cast<double>(keys);
  return -std::expm1(-n * (n - 1) / std::ldexp(1.0, kKeyBits + 1));
}

}  // namespace gdedup
