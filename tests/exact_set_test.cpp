// The exact set (core/exact_set.h) and KeySet over its shards
// (gdedup/key_set.h) against std::unordered_set on random keys with repeats
// (fixed seeds): the same answers one key at a time, through growth from the
// smallest table, in slots of every width (narrow ones reached in small
// tables with narrower keys), and the same sorted keys for every insertion
// order, batch, thread count and starting size; the memory cap, refusing the
// exact key and keeping every one before it; bytes_for against real sets;
// the tables' memory, zeroed and apart through reuse.
#include "core/exact_set.h"
#include "core/table_memory.h"
#include "fs/file_ops.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>
#include <random>
#include <unordered_set>
#include <vector>

#include <gtest/gtest.h>

#include "gdedup/error.h"
#include "gdedup/key_set.h"

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

// `keys` without repeats, in their first occurrences' order.
std::vector<Key84> distinct_in_order(const std::vector<Key84>& keys) {
  std::unordered_set<Key84, KeyHash> seen;
  std::vector<Key84> out;
  for (const Key84 k : keys) {
    if (seen.insert(k).second) out.push_back(k);
  }
  return out;
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
  EXPECT_LE(set.load(), ExactSet::max_load(set.slots_per_bucket()));
}

TEST(ExactSet, EverySlotWidthHoldsItsKeys) {
  // 84-bit keys: 96-bit slots (5 a line) below 2^8 buckets, 80 (6) below
  // 2^16, 72 (7) from there; 68-bit keys reach 64 (8) from 2^8.
  struct Case {
    unsigned key_bits;
    uint64_t keys;
    unsigned per_bucket;
  };
  for (const Case c : {Case{kKeyBits, 300, 5}, Case{kKeyBits, 20000, 6},
                       Case{kKeyBits, 300000, 7}, Case{68, 20000, 8}}) {
    const auto keys = random_keys(c.keys * 3 / 2, c.keys, c.key_bits, c.per_bucket);
    ExactSet set(0, c.key_bits);
    check_against_oracle(set, keys, 333);
    EXPECT_EQ(set.slots_per_bucket(), c.per_bucket) << c.key_bits << " bits, " << c.keys;
    EXPECT_EQ(set.bytes(), ExactSet::bytes_for(set.size(), c.key_bits));
  }
}

TEST(ExactSet, EraseLeavesEveryOtherKeyFindable) {
  for (const unsigned bits : {68u, kKeyBits}) {
    // Many keys of one home (random_keys makes some), so that erasing moves
    // keys back across buckets.
    const auto keys = distinct_in_order(random_keys(6000, 6000, bits, 5));
    ExactSet set(keys.size() * 2, bits);  // room to rebuild at half the size
    std::vector<uint8_t> answers(keys.size());
    set.test_and_insert(keys.data(), keys.size(), answers.data());
    std::unordered_set<Key84, KeyHash> kept(keys.begin(), keys.end());
    for (size_t i = 0; i < keys.size(); i += 3) {
      set.erase(keys[i]);
      kept.erase(keys[i]);
    }
    EXPECT_EQ(set.size(), kept.size());
    std::vector<Key84> sorted(kept.begin(), kept.end());
    std::sort(sorted.begin(), sorted.end());
    EXPECT_TRUE(set.sorted_keys() == sorted) << bits;
    set.contains(keys.data(), keys.size(), answers.data());
    for (size_t i = 0; i < keys.size(); ++i) {
      ASSERT_EQ(answers[i], kept.count(keys[i])) << "key " << i << ", " << bits << " bits";
    }
    // Smaller again, then the erased keys back in: new to it.
    const unsigned bucket_bits = set.bucket_bits();
    ASSERT_TRUE(set.rebuild(bucket_bits - 1, 0));
    EXPECT_TRUE(set.sorted_keys() == sorted);
    EXPECT_EQ(set.growths(), 0u);
    for (size_t i = 0; i < keys.size(); i += 3) {
      EXPECT_EQ(set.test_and_insert_one(keys[i], 0, nullptr), ExactSet::Outcome::added);
    }
    EXPECT_EQ(set.size(), keys.size());
  }
}

// `n` distinct random keys of `bits` bits (no shared top bits: spread as
// hashed keys spread).
std::vector<Key84> spread_keys(size_t n, unsigned bits, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::unordered_set<Key84, KeyHash> seen;
  std::vector<Key84> keys;
  const Key84 mask = (Key84{1} << bits) - 1;
  while (keys.size() < n) {
    const Key84 key = ((static_cast<Key84>(rng()) << 64) | rng()) & mask;
    if (seen.insert(key).second) keys.push_back(key);
  }
  return keys;
}

// A full home bucket says which keys of its home lie past it (its spill
// hints): at the load limit, where most home buckets are full, an absent
// key's lookup still reads one cache line in the common case, in every
// layout that has room for hints; where 64-bit slots leave none, it reads
// the next line too. Present keys are found through inserts that move
// keys on, erases that move them back, and doublings.
TEST(ExactSet, AnAbsentKeyReadsOneLineAtTheLoadLimit) {
  struct Case {
    unsigned key_bits;  // with 2^10 buckets: the slot and its hints
    unsigned per_bucket;
    double most_lines;  // an absent key's, on average
  };
  // 64 bits: remainder 54, three hint bits a slot (24 hints): 1.29 lines;
  // 69: one (8 hints), 1.73; 70: none, 2.40; 84: 6 slots a line, 8 hints
  // in its last byte, 1.49.
  for (const Case c : {Case{64, 8, 1.4}, Case{69, 8, 1.85}, Case{70, 8, 3.0},
                       Case{kKeyBits, 6, 1.6}}) {
    ExactSet set(0, c.key_bits);
    ASSERT_TRUE(set.rebuild(10, 0));
    ASSERT_EQ(set.slots_per_bucket(), c.per_bucket);
    const double limit = ExactSet::max_load(c.per_bucket);
    const auto keys = spread_keys(static_cast<size_t>(set.slots() * limit) - 2, c.key_bits, 31);
    std::vector<uint8_t> answers(keys.size());
    ASSERT_EQ(set.test_and_insert(keys.data(), keys.size(), answers.data()), keys.size());
    ASSERT_EQ(set.bucket_bits(), 10u) << "grew before the load limit";
    const auto absent = spread_keys(20000, c.key_bits, 32);
    std::vector<Key84> held(keys);
    std::sort(held.begin(), held.end());
    auto average_lines = [&] {
      double lines = 0;
      size_t counted = 0;
      for (const Key84 key : absent) {
        if (std::binary_search(held.begin(), held.end(), key)) continue;
        EXPECT_FALSE(set.contains_one(key));
        lines += set.lines_read(key);
        ++counted;
      }
      return lines / static_cast<double>(counted);
    };
    const double lines = average_lines();
    EXPECT_LE(lines, c.most_lines) << c.key_bits << " bits";
    if (c.key_bits == 70) {
      EXPECT_GE(lines, 2.0) << "the next line is read without hints";
    }
    set.contains(keys.data(), keys.size(), answers.data());
    EXPECT_EQ(std::count(answers.begin(), answers.end(), 1), static_cast<long>(keys.size()));
    // Every third key out (keys move back), others in to the limit again
    // (keys move on past stale hints), then a doubling.
    std::vector<Key84> kept;
    for (size_t i = 0; i < keys.size(); ++i) {
      if (i % 3 == 0) {
        set.erase(keys[i]);
      } else {
        kept.push_back(keys[i]);
      }
    }
    const auto more = spread_keys(keys.size() / 3, c.key_bits, 33);
    for (const Key84 key : more) {
      if (std::binary_search(held.begin(), held.end(), key)) continue;
      Key84 one = key;
      uint8_t answer = 9;
      set.test_and_insert(&one, 1, &answer);
      if (answer == 0) kept.push_back(key);
    }
    for (const unsigned bits : {set.bucket_bits(), set.bucket_bits() + 1}) {
      if (bits != set.bucket_bits()) {
        ASSERT_TRUE(set.rebuild(bits, 0));
      }
      std::vector<uint8_t> found(kept.size());
      set.contains(kept.data(), kept.size(), found.data());
      EXPECT_EQ(std::count(found.begin(), found.end(), 1), static_cast<long>(kept.size()))
          << c.key_bits << " bits, " << bits << " bucket bits";
      EXPECT_EQ(set.size(), kept.size());
    }
  }
}

TEST(ExactSet, KeyPastTheLimitLeavesTheTableAsItWas) {
  const auto keys = distinct_in_order(random_keys(5000, 5000, kKeyBits, 6));
  ExactSet set(0, kKeyBits);
  const uint64_t limit = set.bytes() * 4;
  size_t i = 0;
  uint64_t needed = 0;
  for (; i < keys.size(); ++i) {
    if (set.test_and_insert_one(keys[i], limit, &needed) == ExactSet::Outcome::full) break;
  }
  ASSERT_LT(i, keys.size());
  EXPECT_EQ(needed, limit * 2);
  EXPECT_EQ(set.bytes(), limit);
  EXPECT_EQ(set.size(), i);
  std::vector<Key84> before(keys.begin(), keys.begin() + static_cast<long>(i));
  std::sort(before.begin(), before.end());
  EXPECT_TRUE(set.sorted_keys() == before);
  EXPECT_EQ(set.test_and_insert_one(keys[i], 0, nullptr), ExactSet::Outcome::added);
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

// The bytes a table of `keys` keys, `overflowed` of them past their home
// buckets' runs, may take at most: the load rule's table and 64 bytes a key
// of its overflow area.
uint64_t most_bytes(uint64_t keys, uint64_t overflowed, unsigned bits) {
  return ExactSet::bytes_for(keys, bits) + 64 * std::max<uint64_t>(overflowed, 4);
}

TEST(ExactSet, KeysCrowdedAtTheTableEndWrapRoundThroughEveryDoubling) {
  // Every key's top bits near all ones: homes at the table's last buckets,
  // runs that wrap round to its first and doublings that end a run past
  // its last bucket, or too long (those keys go to the overflow area; the
  // table grows by its load alone). Some keys near all zeros share the
  // first buckets with the wrapped ones.
  for (const unsigned bits : {68u, kKeyBits}) {
    std::mt19937_64 rng(bits);
    const Key84 mask = (Key84{1} << bits) - 1;
    std::vector<Key84> keys;
    for (int i = 0; i < 8000; ++i) {
      const Key84 low = ((static_cast<Key84>(rng()) << 64) | rng()) & (mask >> 4);
      const Key84 top = i % 5 == 0 ? Key84{0} : mask & ~(mask >> 4);
      keys.push_back(top | low);
      if (i % 3 == 0) keys.push_back(keys[rng() % keys.size()]);  // a repeat
    }
    ExactSet set(0, bits);
    check_against_oracle(set, keys, 1000);
    EXPECT_GE(set.growths(), 6u) << bits << " bits";
    EXPECT_EQ(set.bytes() - set.overflow_bytes(), ExactSet::bytes_for(set.size(), bits));
    EXPECT_GT(set.overflow_keys(), 1000u) << bits << " bits";
    EXPECT_LE(set.bytes(), most_bytes(set.size(), set.overflow_keys(), bits));
  }
}

// Keys whose hashes share their top bits (a hostile input's, searched for:
// the hash is public) in one home bucket: past its run, in the overflow
// area, with every answer right, the table at the size its load gives, and
// the bytes a small factor over what the key count plans, where a table
// doubling for its runs would take 2^(shared bits) buckets.
TEST(ExactSet, KeysSharingTheirTopBitsTakeTheOverflowAreaNotDoublings) {
  for (const unsigned bits : {68u, kKeyBits}) {
    std::mt19937_64 rng(bits + 100);
    const Key84 mask = (Key84{1} << bits) - 1;
    const unsigned shared = 40;
    const Key84 prefix = ((static_cast<Key84>(rng()) << 64) | rng()) & mask & ~(mask >> shared);
    std::vector<Key84> keys = random_keys(60000, 40000, bits, bits + 7);
    for (size_t i = 0; i < keys.size(); i += 2) {
      keys[i] = prefix | (((static_cast<Key84>(rng()) << 64) | rng()) & (mask >> shared));
      if (i % 10 == 0 && i > 0) keys[i] = keys[i - 10];  // a repeat of a crafted key
    }
    for (const size_t batch : {size_t{1}, size_t{997}}) {
      ExactSet set(0, bits);
      check_against_oracle(set, keys, batch);
      EXPECT_GT(set.overflow_keys(), 20000u);
      EXPECT_EQ(set.bucket_bits(), ExactSet::bucket_bits_for(set.size(), 4, bits, 0));
      EXPECT_LE(set.bytes(), most_bytes(set.size(), set.overflow_keys(), bits));
      EXPECT_LE(set.bytes(), 8 * ExactSet::bytes_for(set.size(), bits)) << bits << " bits";
    }
  }
}

// Every way a table changes keeps the overflow area's keys: a deep copy,
// erasure (of keys in it and in the table), rebuilds smaller and larger,
// and further keys after each.
TEST(ExactSet, OverflowKeysLiveThroughCopyEraseAndRebuild) {
  std::mt19937_64 rng(31);
  const Key84 mask = (Key84{1} << kKeyBits) - 1;
  const Key84 prefix = Key84{0x3c5a5} << (kKeyBits - 20);
  std::vector<Key84> keys = distinct_in_order(random_keys(3000, 3000, kKeyBits, 32));
  for (int i = 0; i < 1500; ++i) {
    keys.push_back(prefix | (((static_cast<Key84>(rng()) << 64) | rng()) & (mask >> 20)));
  }
  keys = distinct_in_order(keys);
  std::shuffle(keys.begin(), keys.end(), rng);
  ExactSet set(0, kKeyBits);
  std::vector<uint8_t> answers(keys.size());
  set.test_and_insert(keys.data(), keys.size(), answers.data());
  ASSERT_EQ(std::count(answers.begin(), answers.end(), 0), static_cast<long>(keys.size()));
  ASSERT_GT(set.overflow_keys(), 1000u);
  const ExactSet copy(set);
  std::unordered_set<Key84, KeyHash> kept(keys.begin(), keys.end());
  const auto check = [&](const ExactSet& s) {
    std::vector<Key84> sorted(kept.begin(), kept.end());
    std::sort(sorted.begin(), sorted.end());
    ASSERT_TRUE(s.sorted_keys() == sorted);
    ASSERT_EQ(s.size(), kept.size());
    std::vector<uint8_t> present(keys.size());
    s.contains(keys.data(), keys.size(), present.data());
    for (size_t i = 0; i < keys.size(); ++i) {
      ASSERT_EQ(present[i], kept.count(keys[i])) << i;
      ASSERT_EQ(s.contains_one(keys[i]), kept.count(keys[i]) == 1) << i;
    }
  };
  for (size_t i = 0; i < keys.size(); i += 3) {
    set.erase(keys[i]);
    kept.erase(keys[i]);
  }
  check(set);
  const uint64_t overflowed = set.overflow_keys();
  ASSERT_TRUE(set.rebuild(set.bucket_bits() + 3, 0));
  check(set);
  EXPECT_LT(set.overflow_keys(), overflowed);  // more homes, shorter runs
  ASSERT_TRUE(set.rebuild(set.bucket_bits() - 3, 0));
  check(set);
  // Erased keys come back as new; held ones are present.
  for (const Key84 key : keys) {
    const bool held = kept.count(key) == 1;
    ASSERT_EQ(set.test_and_insert_one(key, 0, nullptr),
              held ? ExactSet::Outcome::present : ExactSet::Outcome::added);
    kept.insert(key);
  }
  check(set);
  check(copy);  // the copy never saw the erasures
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

// Tables' memory: blocks of every size below a huge page cut from shared
// chunks, and one above, each zeroed and on its own size's boundary (a
// cache line's at least), none overlapping another; a block written and
// given back comes back zeroed.
TEST(TableMemory, BlocksAreZeroedAlignedAndApartThroughReuse) {
  struct Block {
    unsigned char* at;
    uint64_t bytes;
  };
  auto zeroed = [](const Block& b) {
    for (uint64_t i = 0; i < b.bytes; i += 61) {
      if (b.at[i] != 0) return false;
    }
    return b.at[b.bytes - 1] == 0;
  };
  std::mt19937_64 rng(28);
  std::vector<Block> held;
  for (int round = 0; round < 400; ++round) {
    if (!held.empty() && rng() % 3 == 0) {
      const size_t pick = rng() % held.size();
      detail::free_table_memory(held[pick].at, held[pick].bytes);
      held.erase(held.begin() + static_cast<std::ptrdiff_t>(pick));
      continue;
    }
    const uint64_t bytes = uint64_t{1} << (10 + rng() % 13);  // 1 KiB to 4 MiB
    Block b{static_cast<unsigned char*>(detail::table_memory(bytes)), bytes};
    ASSERT_NE(b.at, nullptr);
    const uint64_t boundary = std::min<uint64_t>(bytes, uint64_t{1} << 21);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b.at) % boundary, 0u) << bytes;
    EXPECT_TRUE(zeroed(b)) << "a block of " << bytes << " bytes in round " << round;
    for (const Block& other : held) {
      EXPECT_TRUE(b.at + b.bytes <= other.at || other.at + other.bytes <= b.at);
    }
    std::memset(b.at, 0xa5, b.bytes);
    held.push_back(b);
  }
  for (const Block& b : held) detail::free_table_memory(b.at, b.bytes);
}

// Keys of every shard: the shard's bits are the top 8 of 84.
std::vector<uint8_t> run_batches(KeySet& set, const std::vector<Key84>& keys, size_t batch) {
  std::vector<uint8_t> answers(keys.size());
  for (size_t at = 0; at < keys.size(); at += batch) {
    const size_t n = std::min(batch, keys.size() - at);
    set.test_and_insert(keys.data() + at, n, answers.data() + at);
  }
  return answers;
}

std::vector<Key84> sorted_keys_of(const KeySet& set) {
  std::vector<Key84> keys;
  Key84 last = 0;
  set.for_each_sorted([&](const Key84* k, size_t n) {
    EXPECT_LE(n, size_t{1} << 16);
    for (size_t i = 0; i < n; ++i) {
      EXPECT_TRUE(keys.empty() || k[i] > last) << "not ascending at " << keys.size();
      last = k[i];
      keys.push_back(k[i]);
    }
  });
  return keys;
}

// The oracle's answers for `keys` in order, and its keys sorted.
std::vector<uint8_t> oracle_answers(const std::vector<Key84>& keys, std::vector<Key84>* sorted) {
  std::unordered_set<Key84, KeyHash> seen;
  std::vector<uint8_t> answers(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) answers[i] = seen.insert(keys[i]).second ? 0 : 1;
  sorted->assign(seen.begin(), seen.end());
  std::sort(sorted->begin(), sorted->end());
  return answers;
}

TEST(KeySet, AnswersAsOneSequentialSetForEveryThreadCountAndBatch) {
  const auto keys = random_keys(150000, 90000, kKeyBits, 11);
  std::vector<Key84> expected;
  const std::vector<uint8_t> expected_answers = oracle_answers(keys, &expected);
  uint64_t bytes = 0;
  for (const unsigned threads : {1u, 2u, 3u, 4u}) {
    for (const size_t batch : {size_t{1}, size_t{7}, size_t{4096}, keys.size()}) {
      if (batch < 4096 && threads > 2) continue;  // the same path as threads 1 and 2
      KeySet set(0, KeySetOptions{threads, 0});
      EXPECT_TRUE(run_batches(set, keys, batch) == expected_answers)
          << threads << " threads, batches of " << batch;
      EXPECT_EQ(set.size(), expected.size());
      EXPECT_TRUE(sorted_keys_of(set) == expected) << threads << " threads, " << batch;
      if (bytes == 0) bytes = set.bytes();
      EXPECT_EQ(set.bytes(), bytes) << threads << " threads, batches of " << batch;
      std::vector<uint8_t> present(keys.size());
      set.contains(keys.data(), keys.size(), present.data());
      EXPECT_EQ(std::count(present.begin(), present.end(), 1), static_cast<long>(keys.size()));
      const auto absent = random_keys(20000, 20000, kKeyBits, 12);
      set.contains(absent.data(), absent.size(), present.data());
      for (size_t i = 0; i < absent.size(); ++i) {
        ASSERT_EQ(present[i], std::binary_search(expected.begin(), expected.end(), absent[i]));
      }
    }
  }
}

TEST(KeySet, CloneIsDeepAndMergeIsTheUnion) {
  const auto a = random_keys(40000, 30000, kKeyBits, 13);
  const auto b = random_keys(40000, 30000, kKeyBits, 14);
  KeySet set(0, KeySetOptions{2, 0});
  set.insert(a.data(), a.size());
  KeySet copy = set.clone();
  set.insert(b.data(), b.size());
  std::vector<Key84> only_a, both;
  oracle_answers(a, &only_a);
  std::vector<Key84> ab = a;
  ab.insert(ab.end(), b.begin(), b.end());
  oracle_answers(ab, &both);
  EXPECT_TRUE(sorted_keys_of(copy) == only_a);
  EXPECT_EQ(copy.options().threads, 2u);
  KeySet other;
  other.insert(b.data(), b.size());
  copy.merge(other);
  EXPECT_TRUE(sorted_keys_of(copy) == both);
  EXPECT_TRUE(sorted_keys_of(set) == both);
  copy.merge(copy);
  EXPECT_EQ(copy.size(), both.size());
}

// Runs `keys` in batches of `batch` into a set capped at `cap` until it
// refuses one; checks what the refusal says and leaves, and returns the
// refused key's position.
size_t run_until_full(KeySet& set, const std::vector<Key84>& keys, size_t batch, uint64_t cap) {
  std::vector<Key84> ignored;
  const std::vector<uint8_t> expected = oracle_answers(keys, &ignored);
  std::vector<uint8_t> answers(keys.size(), 9);
  size_t refused = keys.size();
  for (size_t at = 0; at < keys.size() && refused == keys.size(); at += batch) {
    const size_t n = std::min(batch, keys.size() - at);
    try {
      set.test_and_insert(keys.data() + at, n, answers.data() + at);
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::set_full);
      EXPECT_EQ(e.available(), cap);
      EXPECT_GT(e.needed(), cap);
      const std::string what = e.what();
      EXPECT_NE(what.find("past its cap of " + std::to_string(cap) + " bytes"),
                std::string::npos)
          << what;
      EXPECT_NE(what.find("grow to " + std::to_string(e.needed()) + " bytes"), std::string::npos);
      // "key N of the batch": the first key not added.
      const size_t key_at = what.find("key ");
      refused = at + std::stoul(what.substr(key_at + 4));
    }
  }
  EXPECT_LE(set.bytes(), cap);
  // Every key before the refused one answered as in order and still there,
  // none after it added unless seen before it.
  std::vector<Key84> before(keys.begin(), keys.begin() + static_cast<long>(refused));
  std::vector<Key84> sorted_before;
  EXPECT_TRUE(oracle_answers(before, &sorted_before) ==
              std::vector<uint8_t>(answers.begin(), answers.begin() + static_cast<long>(refused)));
  EXPECT_EQ(set.size(), sorted_before.size());
  EXPECT_TRUE(sorted_keys_of(set) == sorted_before);
  if (refused < keys.size()) {
    EXPECT_EQ(expected[refused], 0) << "a key seen before was refused";
  }
  return refused;
}

TEST(KeySet, CapRefusesTheExactKeyAndKeepsEveryOneBefore) {
  const auto keys = random_keys(100000, 80000, kKeyBits, 15);
  const uint64_t cap = KeySet::bytes_for(40000);
  size_t refused_first = 0;
  uint64_t bytes = 0;
  for (const unsigned threads : {1u, 2u, 4u}) {
    for (const size_t batch : {size_t{7}, size_t{50000}}) {
      KeySet set(0, KeySetOptions{threads, cap});
      const size_t refused = run_until_full(set, keys, batch, cap);
      ASSERT_LT(refused, keys.size());
      if (refused_first == 0) {
        refused_first = refused;
        bytes = set.bytes();
      }
      EXPECT_EQ(refused, refused_first) << threads << " threads, batches of " << batch;
      EXPECT_EQ(set.bytes(), bytes);
      // A raised cap: the set goes on from the refused key as if never
      // stopped.
      set.set_max_bytes(0);
      std::vector<uint8_t> answers(keys.size() - refused);
      set.test_and_insert(keys.data() + refused, answers.size(), answers.data());
      std::vector<Key84> all;
      const auto expected = oracle_answers(keys, &all);
      EXPECT_TRUE(std::equal(answers.begin(), answers.end(),
                             expected.begin() + static_cast<long>(refused)));
      EXPECT_TRUE(sorted_keys_of(set) == all);
    }
  }
}

// Makes every anonymous mapping of the engine fail once armed (fs's
// Observer): the system out of memory at a point of the test's choosing.
class RefuseMemory : public fs::Observer {
 public:
  RefuseMemory() : previous_(fs::set_observer(this)) {}
  ~RefuseMemory() override { fs::set_observer(previous_); }
  void arm() { armed_ = true; }
  int before(fs::Op op, const std::string&, size_t&) override {
    return op == fs::Op::kMap && armed_ ? ENOMEM : 0;
  }

 private:
  fs::Observer* previous_;
  std::atomic<bool> armed_{false};
};

// The system out of memory midway through a batch, on one thread or while
// other threads run further keys of other shards: the keys before the one
// refused are answered and added, no key after it is, and the set answers
// on once memory comes back.
TEST(KeySet, OutOfMemoryMidBatchKeepsEveryKeyBeforeItAndNoneAfter) {
  const auto keys = random_keys(300000, 200000, kKeyBits, 41);
  std::vector<Key84> all;
  const std::vector<uint8_t> expected = oracle_answers(keys, &all);
  for (const unsigned threads : {1u, 3u}) {
    RefuseMemory refuse;
    KeySet set(0, KeySetOptions{threads, 0});
    std::vector<uint8_t> answers(keys.size(), 9);
    set.test_and_insert(keys.data(), 20000, answers.data());
    refuse.arm();
    try {
      set.test_and_insert(keys.data() + 20000, keys.size() - 20000, answers.data() + 20000);
      FAIL() << "no key was refused, " << threads << " threads";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::out_of_memory) << e.what();
    }
    // The refused key: the first the set does not hold (the answers past
    // it say nothing).
    std::vector<uint8_t> held(keys.size());
    set.contains(keys.data(), keys.size(), held.data());
    const size_t refused = std::find(held.begin(), held.end(), 0) - held.begin();
    ASSERT_GT(refused, 20000u);
    ASSERT_LT(refused, keys.size());
    EXPECT_TRUE(std::equal(answers.begin(), answers.begin() + static_cast<long>(refused),
                           expected.begin()))
        << threads << " threads";
    std::vector<Key84> before(keys.begin(), keys.begin() + static_cast<long>(refused));
    std::vector<Key84> sorted_before;
    oracle_answers(before, &sorted_before);
    EXPECT_TRUE(sorted_keys_of(set) == sorted_before) << threads << " threads";
    EXPECT_EQ(expected[refused], 0) << "a key seen before was refused";
    fs::set_observer(nullptr);  // memory back: the set goes on from the refused key
    set.test_and_insert(keys.data() + refused, keys.size() - refused, answers.data() + refused);
    EXPECT_TRUE(answers == expected) << threads << " threads";
    EXPECT_TRUE(sorted_keys_of(set) == all);
  }
}

TEST(KeySet, CapBelowWhatTheSetTakesRefusesGrowthOnly) {
  const auto keys = distinct_in_order(random_keys(30000, 30000, kKeyBits, 19));  // ~19,000
  KeySet set(0, KeySetOptions{2, 0});
  set.insert(keys.data(), 10000);
  const uint64_t bytes = set.bytes();
  set.set_max_bytes(1);
  // Keys held are answered; new ones go in until one needs a shard to grow.
  std::vector<uint8_t> answers(keys.size());
  set.test_and_insert(keys.data(), 10000, answers.data());
  EXPECT_EQ(std::count(answers.begin(), answers.begin() + 10000, 1), 10000);
  size_t refused = 0;
  try {
    set.test_and_insert(keys.data() + 10000, keys.size() - 10000, answers.data());
    FAIL() << "no key refused";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::set_full);
    EXPECT_EQ(e.available(), 1u);
    const std::string what = e.what();
    refused = std::stoul(what.substr(what.find("key ") + 4));
  }
  EXPECT_GT(refused, 0u);
  EXPECT_EQ(set.size(), 10000 + refused);
  EXPECT_EQ(set.bytes(), bytes);
}

TEST(KeySet, CapRefusesTheExactKeyWhenTheOverflowAreaGrowsInParallel) {
  // 20,000 keys of one shard that share their top 40 bits: in one home
  // bucket, so past its run, in the shard's overflow area, which grows past
  // the cap while other threads run further keys of other shards.
  auto keys = random_keys(120000, 100000, kKeyBits, 16);
  std::mt19937_64 rng(17);
  const Key84 prefix = (Key84{0x5a} << 76) | (Key84{0xabcdef} << 52);
  for (size_t i = 0; i < 20000; ++i) {
    keys[60000 + i * 3] = prefix | (static_cast<Key84>(rng()) & ((Key84{1} << 44) - 1));
  }
  // Room for the other keys, and for the crafted shard's table at its
  // load, but not for their overflow area (1 MiB).
  KeySet plain;
  plain.insert(keys.data(), 60000);
  const uint64_t cap = plain.bytes() + (uint64_t{1} << 19);
  size_t refused_first = 0;
  for (const unsigned threads : {1u, 2u, 3u}) {
    KeySet set(0, KeySetOptions{threads, cap});
    const size_t refused = run_until_full(set, keys, keys.size(), cap);
    ASSERT_LT(refused, keys.size());
    if (refused_first == 0) refused_first = refused;
    EXPECT_EQ(refused, refused_first) << threads << " threads";
    EXPECT_GE(refused, 60000u);
  }
}

// A merge past the cap merges nothing: the set keeps its keys, bytes and
// growths, whether the load rule refuses it before anything changes or a
// shard's overflow area grows past the cap midway.
TEST(KeySet, MergePastTheCapLeavesTheSetAsItWas) {
  const auto mine = random_keys(60000, 50000, kKeyBits, 21);
  auto theirs = random_keys(60000, 50000, kKeyBits, 22);
  // 20,000 keys of one shard sharing their top 40 bits: one home bucket,
  // and 1 MiB of overflow area.
  std::mt19937_64 rng(23);
  const Key84 prefix = (Key84{0x5a} << 76) | (Key84{0xabcdef} << 52);
  auto hot = theirs;
  std::vector<Key84> cold = mine;  // the union less the crafted keys
  for (size_t i = 0; i < hot.size(); ++i) {
    if (i % 3 == 0) {
      hot[i] = prefix | (static_cast<Key84>(rng()) & ((Key84{1} << 44) - 1));
    } else {
      cold.push_back(hot[i]);
    }
  }
  KeySet cold_set;
  cold_set.insert(cold.data(), cold.size());
  std::vector<Key84> all = mine;
  all.insert(all.end(), theirs.begin(), theirs.end());
  std::vector<Key84> union_keys;
  oracle_answers(all, &union_keys);
  for (const auto* other_keys : {&theirs, &hot}) {
    for (const unsigned threads : {1u, 3u}) {
      KeySet set(0, KeySetOptions{threads, 0});
      set.insert(mine.data(), mine.size());
      KeySet other;
      other.insert(other_keys->data(), other_keys->size());
      const std::vector<Key84> before = sorted_keys_of(set);
      const uint64_t bytes = set.bytes(), growths = set.growths();
      // `theirs` makes the set grow past what it takes now: refused by the
      // load rule. `hot` fits the cap by the load rule (its crafted shard's
      // table, 256 KiB, among the rest), but its overflow area does not.
      const uint64_t cap =
          other_keys == &hot ? cold_set.bytes() + (uint64_t{1} << 19) : set.bytes();
      set.set_max_bytes(cap);
      try {
        set.merge(other);
        FAIL() << "a merge past the cap went through";
      } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::set_full);
        EXPECT_EQ(e.available(), cap);
        EXPECT_NE(std::string(e.what()).find("nothing was merged"), std::string::npos)
            << e.what();
      }
      EXPECT_EQ(set.size(), before.size());
      EXPECT_TRUE(sorted_keys_of(set) == before);
      EXPECT_EQ(set.bytes(), bytes);
      EXPECT_EQ(set.growths(), growths);
      // And it answers as before: every one of its keys, none of the others.
      std::vector<uint8_t> present(other_keys->size());
      set.contains(other_keys->data(), other_keys->size(), present.data());
      for (size_t i = 0; i < other_keys->size(); ++i) {
        ASSERT_EQ(present[i], std::binary_search(before.begin(), before.end(), (*other_keys)[i]))
            << i;
      }
      // Without the cap the same merge is the union.
      if (other_keys == &theirs) {
        set.set_max_bytes(0);
        set.merge(other);
        EXPECT_TRUE(sorted_keys_of(set) == union_keys);
      }
    }
  }
}

// KeySet::reserve: room taken as a set sized for that many keys has it, the
// keys and answers unchanged, no doubling while the keys fit; under a cap,
// no more room than the cap, and never a refusal that a set grown key by
// key would not make (the room goes back first).
TEST(KeySet, ReserveTakesRoomAndNeverChangesTheKeysOrTheAnswers) {
  const auto keys = random_keys(300000, 200000, kKeyBits, 21);
  std::vector<Key84> all;
  const std::vector<uint8_t> expected = oracle_answers(keys, &all);
  for (const unsigned threads : {1u, 2u}) {
    KeySet set(0, KeySetOptions{threads, 0});
    std::vector<uint8_t> answers(keys.size());
    set.test_and_insert(keys.data(), 30000, answers.data());
    const uint64_t size = set.size();
    set.reserve(all.size());
    EXPECT_EQ(set.size(), size);
    EXPECT_EQ(set.bytes(), KeySet::bytes_for(all.size())) << threads << " threads";
    const uint64_t growths = set.growths();
    set.reserve(1000);  // less than it holds: nothing changes
    EXPECT_EQ(set.bytes(), KeySet::bytes_for(all.size()));
    set.test_and_insert(keys.data() + 30000, keys.size() - 30000, answers.data() + 30000);
    EXPECT_TRUE(answers == expected) << threads << " threads";
    EXPECT_TRUE(sorted_keys_of(set) == all);
    // Only the shards that got more than their share double, once: as the
    // set grown key by key ends, with a tenth of its doublings.
    KeySet grown(0, KeySetOptions{threads, 0});
    grown.insert(keys.data(), keys.size());
    EXPECT_EQ(set.bytes(), grown.bytes());
    EXPECT_LT(set.growths() - growths, grown.growths() / 10) << threads << " threads";
  }
  // Under a cap: room up to the cap at most.
  const uint64_t cap = KeySet(all.size()).bytes() / 2;
  KeySet capped(0, KeySetOptions{1, cap});
  capped.insert(keys.data(), 1000);
  capped.reserve(all.size());
  EXPECT_LE(capped.bytes(), cap);
  EXPECT_GT(capped.bytes(), KeySet::bytes_for(all.size() / 8));
  std::vector<Key84> first;
  oracle_answers(std::vector<Key84>(keys.begin(), keys.begin() + 1000), &first);
  EXPECT_TRUE(sorted_keys_of(capped) == first);
}

// RoomFromSample: no room before its sample is complete; then room for the
// new keys the sample's share predicts among the keys to come, once (what
// a set given reserve() of that many has); none when no key is to come.
// Feeds `keys` to `set` in steps, with `total` keys in the stream, calling
// `room` after each step; checks after each that the room taken is never
// for more than kMaxStep times the keys the set holds, and returns the
// set's growths once its first room was taken (UINT64_MAX if never).
uint64_t feed_with_room(KeySet& set, RoomFromSample& room, const std::vector<Key84>& keys,
                        uint64_t total) {
  const uint64_t step = RoomFromSample::kSampleKeys / 4;
  std::vector<uint8_t> answers(step);
  uint64_t growths_at_room = UINT64_MAX;
  for (uint64_t at = 0; at < keys.size(); at += step) {
    const uint64_t n = std::min<uint64_t>(step, keys.size() - at);
    const uint64_t fresh = set.test_and_insert(keys.data() + at, n, answers.data());
    const uint64_t grown = set.bytes();
    room.after(set, n, fresh, total - (at + n));
    if (at + n < RoomFromSample::kSampleKeys) {
      EXPECT_EQ(set.bytes(), grown) << "room taken before the sample, at key " << at + n;
    } else if (set.bytes() != grown) {
      if (growths_at_room == UINT64_MAX) growths_at_room = set.growths();
      EXPECT_LE(set.bytes(), KeySet::bytes_for(RoomFromSample::kMaxStep * set.size()))
          << "at key " << at + n;
    }
  }
  return growths_at_room;
}

TEST(KeySet, RoomIsTakenAsTheKeysComeForTheKeysTheyPredict) {
  // Keys drawn from half as many values: a share of new ones that falls
  // as the set fills.
  const uint64_t n = 64 * RoomFromSample::kSampleKeys;
  const auto keys = random_keys(n, n / 2, kKeyBits, 33);
  KeySet set(0, KeySetOptions{1, 0});
  RoomFromSample room;
  const uint64_t growths = feed_with_room(set, room, keys, n);
  ASSERT_NE(growths, UINT64_MAX) << "no room taken";
  // Room came before the keys: no shard doubled its way there.
  EXPECT_EQ(set.growths(), growths);
  EXPECT_LE(set.bytes(), 2 * KeySet::bytes_for(set.size()));
  // Nothing to come: no room.
  KeySet ended(0, KeySetOptions{1, 0});
  RoomFromSample none;
  std::vector<uint8_t> answers(RoomFromSample::kSampleKeys);
  const uint64_t fresh =
      ended.test_and_insert(keys.data(), RoomFromSample::kSampleKeys, answers.data());
  const uint64_t before = ended.bytes();
  none.after(ended, RoomFromSample::kSampleKeys, fresh, 0);
  EXPECT_EQ(ended.bytes(), before);
}

// A stream whose first keys are all new and whose estimate promises many
// more (a small compressed file of distinct lines, then a flood of empty
// ones): the room follows the keys that come, never the estimate alone.
TEST(KeySet, RoomForAnEstimateTheKeysNeverReachStaysNearTheKeys) {
  std::vector<Key84> keys = distinct_in_order(
      random_keys(2 * RoomFromSample::kSampleKeys, 4 * RoomFromSample::kSampleKeys, kKeyBits, 34));
  keys.resize(RoomFromSample::kSampleKeys + 4000);
  const size_t distinct = keys.size();
  keys.resize(40 * RoomFromSample::kSampleKeys, keys[7]);  // one key, again and again
  KeySet set(0, KeySetOptions{1, 0});
  RoomFromSample room;
  feed_with_room(set, room, keys, uint64_t{200} << 20);  // 200 million to come
  EXPECT_EQ(set.size(), distinct);
  EXPECT_LE(set.bytes(), KeySet::bytes_for(RoomFromSample::kMaxStep * distinct));
}

TEST(KeySet, RoomReservedForKeysThatNeverCameGoesBackBeforeTheCapRefuses) {
  const auto keys = random_keys(100000, 80000, kKeyBits, 15);
  // The cap of CapRefusesTheExactKeyAndKeepsEveryOneBefore: a grown set
  // refuses a key well before the end.
  const uint64_t cap = KeySet::bytes_for(40000);
  for (const size_t batch : {size_t{7}, size_t{50000}}) {
    KeySet grown(0, KeySetOptions{2, cap});
    const size_t refused = run_until_full(grown, keys, batch, cap);
    ASSERT_LT(refused, keys.size());
    // Room for ten times the keys, within the cap: the same key is refused,
    // with the same set before it.
    KeySet roomy(0, KeySetOptions{2, cap});
    std::vector<uint8_t> answers(keys.size());
    roomy.test_and_insert(keys.data(), 1000, answers.data());
    const uint64_t small = roomy.bytes();
    roomy.reserve(800000);
    EXPECT_GT(roomy.bytes(), 2 * small);
    EXPECT_LE(roomy.bytes(), cap);
    size_t stopped = keys.size();
    for (size_t at = 1000; at < keys.size() && stopped == keys.size(); at += batch) {
      try {
        roomy.test_and_insert(keys.data() + at, std::min(batch, keys.size() - at),
                              answers.data() + at);
      } catch (const Error& e) {
        ASSERT_EQ(e.kind(), ErrorKind::set_full);
        const std::string what = e.what();
        stopped = at + std::stoul(what.substr(what.find("key ") + 4));
      }
    }
    EXPECT_EQ(stopped, refused) << "batches of " << batch;
    EXPECT_EQ(roomy.bytes(), grown.bytes());
    EXPECT_TRUE(sorted_keys_of(roomy) == sorted_keys_of(grown));
  }
}

// KeySet::sized: a capacity or a cap that contradicts the other is refused
// before any table is made, naming both as the caller names them; a
// capacity no machine holds is out of memory.
TEST(KeySet, SizedRefusesACapacityPastTheCapBeforeMakingTheSet) {
  const KeySetSizeNames names{"--capacity 1T", "--capacity", "--max-memory 1MiB",
                              "--max-memory"};
  try {
    // A trillion keys: a table of terabytes, never allocated.
    KeySet::sized(1000000000000, KeySetOptions{1, 1 << 20}, names);
    FAIL() << "a capacity past the cap was taken";
  } catch (const UsageError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::invalid_argument);
    EXPECT_EQ(e.needed(), KeySet::bytes_for(1000000000000));
    EXPECT_EQ(e.available(), uint64_t{1} << 20);
    const std::string what = e.what();
    EXPECT_NE(what.find("a set sized for --capacity 1T takes "), std::string::npos) << what;
    EXPECT_NE(what.find("more than --max-memory 1MiB allows; give a smaller --capacity"),
              std::string::npos)
        << what;
  }
  try {
    KeySet::sized(0, KeySetOptions{1, 1024}, names);
    FAIL() << "a cap below the smallest set was taken";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("the smallest set takes"), std::string::npos);
  }
  try {
    KeySet::sized(uint64_t{1} << 50, KeySetOptions{1, 0}, names);
    FAIL() << "a set of 2^50 keys was made";
  } catch (const UsageError&) {
    FAIL() << "no cap was given";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::out_of_memory);
  }
  const KeySet set = KeySet::sized(100000, KeySetOptions{1, KeySet::bytes_for(200000)}, names);
  EXPECT_GE(set.bytes(), KeySet::bytes_for(100000));
}

// Sizes near 2^64 keys: no arithmetic wraps round to a small set. A
// capacity past the most a set holds is refused as a usage error, with or
// without a cap (2^64 - 1 keys came out as 256 KiB, under a 1 MiB cap).
TEST(KeySet, CapacitiesPastTheLargestSetAreRefusedWithoutWrappingRound) {
  const uint64_t most = KeySet::max_keys();
  EXPECT_GT(most, uint64_t{2000000000000000});
  EXPECT_LT(most, uint64_t{1} << 52);
  EXPECT_EQ(KeySet::bytes_for(most), uint64_t{1} << 54);  // 256 shards of 64 TiB
  for (const uint64_t keys : {most + 1, uint64_t{100000000000000000}, UINT64_MAX - 255,
                              UINT64_MAX}) {
    EXPECT_EQ(KeySet::bytes_for(keys), UINT64_MAX) << keys;
    for (const uint64_t cap : {uint64_t{0}, uint64_t{1} << 20}) {
      const KeySetSizeNames names{"--capacity " + std::to_string(keys), "--capacity",
                                  "--max-memory 1MiB", "--max-memory"};
      try {
        KeySet::sized(keys, KeySetOptions{1, cap}, names);
        FAIL() << keys << " keys were taken, cap " << cap;
      } catch (const UsageError& e) {
        EXPECT_EQ(e.kind(), ErrorKind::invalid_argument);
        EXPECT_NE(std::string(e.what()).find("--capacity " + std::to_string(keys) +
                                             " is more keys than an exact set holds"),
                  std::string::npos)
            << e.what();
      }
    }
    EXPECT_THROW(KeySet{keys}, UsageError);
  }
  // Sizes grow with the keys up to the largest set.
  uint64_t bytes = 0;
  for (uint64_t keys = 1; keys <= most / 2; keys *= 3) {
    ASSERT_GE(KeySet::bytes_for(keys), bytes) << keys;
    bytes = KeySet::bytes_for(keys);
  }
}

TEST(KeySet, BytesForIsWhatASetGrownToThatManyKeysTakes) {
  // Shards double one after another over a range of sizes; between those
  // ranges lie sizes at which no shard doubles. There, midway, and at 0: a
  // shard's keys vary by about their square root, from 100 keys a shard on
  // a sixth of the way to either end or less.
  std::vector<uint64_t> counts = {0};
  uint64_t plateau = 0;  // where bytes_for last changed
  for (uint64_t n = 1; n < 800000; n += 997) {
    if (KeySet::bytes_for(n) == KeySet::bytes_for(plateau)) continue;
    if (n - plateau > plateau / 4 && plateau > 25600) counts.push_back((plateau + n) / 2);
    plateau = n;
  }
  ASSERT_GE(counts.size(), 4u);
  uint64_t at = 0;
  KeySet grown(0, KeySetOptions{2, 0});
  const auto keys = distinct_in_order(random_keys(1000000, 1000000, kKeyBits, 18));
  ASSERT_GE(keys.size(), counts.back());  // about 632,000 distinct
  for (const uint64_t n : counts) {
    grown.insert(keys.data() + at, n - at);
    at = n;
    EXPECT_EQ(grown.size(), n);
    EXPECT_EQ(grown.bytes(), KeySet::bytes_for(n)) << n << " keys";
    // Sized for n from the start: room for the shards' spread, no growth.
    KeySet sized(n);
    EXPECT_GE(sized.bytes(), KeySet::bytes_for(n));
    EXPECT_LE(sized.bytes(), KeySet::bytes_for(n) * 2);
    sized.insert(keys.data(), n);
    EXPECT_EQ(sized.growths(), 0u) << "sized for " << n << " keys";
  }
  // About 8.6 bytes a key at 1e9: 2^19 buckets a shard, 8 slots each.
  EXPECT_EQ(KeySet::bytes_for(1000000000), uint64_t{256} << 25);
}

}  // namespace
}  // namespace gdedup
