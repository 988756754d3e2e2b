// The exact set (core/exact_set.h) against std::unordered_set on random keys
// with repeats (fixed seeds): the same answers one key at a time, through
// growth from the smallest table, in wide and narrow slots (narrow ones
// reached in small tables with 68-bit keys), and the same sorted keys for
// every insertion order, batch and starting size.
#include "core/exact_set.h"

#include <algorithm>
#include <cstring>
#include <random>
#include <unordered_set>
#include <vector>

#include <gtest/gtest.h>

#include "gdedup/error.h"

namespace gdedup {
namespace {

struct KeyHash {
  size_t operator()(Key84 k) const {
    return std::hash<uint64_t>{}(static_cast<uint64_t>(k) ^ static_cast<uint64_t>(k >> 64));
  }
};

// `n` keys of `bits` bits drawn from `distinct` values: about n - distinct
// repeats. Some values share their top bits (the same home bucket) or all
// but their last bits, to fill runs and catch a remainder cut short.
std::vector<Key84> random_keys(size_t n, size_t distinct, unsigned bits, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Key84> values(distinct);
  const Key84 mask = (Key84{1} << bits) - 1;
  for (size_t i = 0; i < distinct; ++i) {
    Key84 v = ((static_cast<Key84>(rng()) << 64) | rng()) & mask;
    if (i % 7 == 1) v = (values[i - 1] & ~Key84{0xff}) | (v & 0xff);         // same home
    if (i % 11 == 2) v = values[i - 1] ^ 1;                                 // last bit only
    values[i] = v & mask;
  }
  std::vector<Key84> keys(n);
  for (size_t i = 0; i < n; ++i) keys[i] = values[rng() % distinct];
  return keys;
}

// Runs `keys` through `set` in batches of `batch`, checking every answer
// against the oracle.
void check_against_oracle(ExactSet& set, const std::vector<Key84>& keys, size_t batch) {
  std::unordered_set<Key84, KeyHash> seen;
  std::vector<uint8_t> answers(batch);
  for (size_t at = 0; at < keys.size(); at += batch) {
    const size_t n = std::min(batch, keys.size() - at);
    const uint64_t added = set.test_and_insert(keys.data() + at, n, answers.data());
    uint64_t expected_added = 0;
    for (size_t i = 0; i < n; ++i) {
      const bool was = !seen.insert(keys[at + i]).second;
      expected_added += was ? 0 : 1;
      ASSERT_EQ(answers[i], was ? 1 : 0) << "key " << at + i << ", batch " << batch;
    }
    ASSERT_EQ(added, expected_added);
  }
  EXPECT_EQ(set.size(), seen.size());
  std::vector<Key84> sorted(seen.begin(), seen.end());
  std::sort(sorted.begin(), sorted.end());
  EXPECT_TRUE(set.sorted_keys() == sorted);
  std::vector<uint8_t> present(keys.size());
  set.contains(keys.data(), keys.size(), present.data());
  EXPECT_EQ(std::count(present.begin(), present.end(), 1), static_cast<long>(keys.size()));
}

TEST(ExactSet, AnswersAsASetOfItsKeysThroughGrowthInWideSlots) {
  const auto keys = random_keys(200000, 120000, kKeyBits, 1);
  ExactSet set;  // the smallest table: it grows 13 times
  check_against_oracle(set, keys, 4096);
  EXPECT_GE(set.growths(), 10u);
  EXPECT_LE(set.load(), ExactSet::kMaxLoad);
}

TEST(ExactSet, AnswersAsASetOfItsKeysThroughGrowthInNarrowSlots) {
  // 68-bit keys: a slot is one word from 8 bucket bits up.
  const auto keys = random_keys(300000, 150000, 68, 2);
  ExactSet set(0, 68);
  check_against_oracle(set, keys, 1000);
  EXPECT_GE(set.bucket_bits(), 14u);
  // Keys that differ only in bits the home bucket holds, or only in the
  // last, are told apart.
  const Key84 a = Key84{1} << 67, b = Key84{1} << 60, c = (Key84{1} << 67) | 1;
  std::vector<Key84> close = {a, b, c, a, b, c};
  std::vector<uint8_t> answers(close.size());
  ExactSet fresh(0, 68);
  fresh.test_and_insert(close.data(), close.size(), answers.data());
  EXPECT_EQ(answers, (std::vector<uint8_t>{0, 0, 0, 1, 1, 1}));
}

TEST(ExactSet, WhatItHoldsDependsOnItsKeysAlone) {
  for (const unsigned bits : {68u, kKeyBits}) {
    const auto keys = random_keys(50000, 30000, bits, 3);
    ExactSet in_order(0, bits);
    check_against_oracle(in_order, keys, 1);
    std::vector<Key84> shuffled = keys;
    std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937_64(4));
    ExactSet presized(keys.size(), bits);  // no growth at all
    check_against_oracle(presized, shuffled, 7);
    EXPECT_EQ(presized.growths(), 0u);
    EXPECT_TRUE(in_order.sorted_keys() == presized.sorted_keys()) << bits << " bits";
  }
}

TEST(ExactSet, KeysAreTheTop84BitsOfXxh3_128) {
  // The hash of "" with seed 0 is 99aa06d3014798d8 6001c324468d497f
  // (xxHash's test vectors): its top 84 bits.
  EXPECT_TRUE(key84("", 0, 0) == ((Key84{0x99aa06d3014798d8ull} << 20) | 0x6001cu));
  EXPECT_TRUE(key84("a", 1, 1) != key84("a", 1, 2));
}

TEST(ExactSet, CollisionChanceIsTheBirthdayBound) {
  EXPECT_EQ(ExactSet::collision_chance(0), 0.0);
  EXPECT_EQ(ExactSet::collision_chance(1), 0.0);
  // n^2 / 2^85: about 2.6e-8 at 1e9 keys, 2.6e-6 at 1e10.
  EXPECT_NEAR(ExactSet::collision_chance(1000000000) / 2.58e-8, 1.0, 0.01);
  EXPECT_NEAR(ExactSet::collision_chance(10000000000ull) / 2.58e-6, 1.0, 0.01);
}

TEST(ExactSet, RefusesKeyWidthsItCannotHold) {
  EXPECT_THROW(ExactSet(0, 85), UsageError);
  EXPECT_THROW(ExactSet(0, 63), UsageError);
}

}  // namespace
}  // namespace gdedup
