// The exact set on a device (GpuKeySet) against the CPU's KeySet: the same
// answers batch by batch and the same keys at the end, on random keys with
// heavy duplicates, one hot key at 15/16 of a batch and distinct keys, in
// batches of 1, 7, 4096 and 1e6 keys, through growth and from a set that
// holds keys already, in passes from host memory; repeats of keys that meet
// in warps passes apart; its slot words and salt, its sizing against a
// simulation of linear probing, keys made to share their top bits, its cap
// and what a failed call leaves. Without a GPU this runs on the CUDA
// stand-in (tests/cuda_standin), one-at-a-time and concurrent launches.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "../kernels/set_sizing.h"
#include "../kernels/set_slots.h"
#include "gdedup/error.h"
#include "gdedup/gpu.h"
#include "gdedup/key_set.h"
#include "require_gpu.h"
#include "standin_schedules.h"
#include "test_util.h"

#if defined(GDEDUP_HAVE_CUDA)
#include <cuda_runtime_api.h>

#include "../kernels/set_kernels.h"
#endif

namespace gdedup {
namespace {

Key84 random_key(test::Rng& rng) { return key84_of(rng.next(), rng.next()); }

enum class Kind { kHeavyDuplicates, kHotKey, kDistinct };

const char* kind_name(Kind k) {
  return k == Kind::kHeavyDuplicates ? "heavy duplicates"
         : k == Kind::kHotKey        ? "hot key at 15/16"
                                     : "distinct";
}

// n keys: drawn from a pool of n / 8 (heavy duplicates), one key at every
// position but each 16th (hot key), or all different.
std::vector<Key84> keys_of(Kind kind, uint64_t n, uint64_t seed) {
  test::Rng rng(seed);
  std::vector<Key84> pool(std::max<uint64_t>(n / 8, 1));
  for (Key84& k : pool) k = random_key(rng);
  const Key84 hot = random_key(rng);
  std::vector<Key84> keys(n);
  for (uint64_t i = 0; i < n; ++i) {
    switch (kind) {
      case Kind::kHeavyDuplicates: keys[i] = pool[rng.below(pool.size())]; break;
      case Kind::kHotKey: keys[i] = i % 16 != 0 ? hot : random_key(rng); break;
      case Kind::kDistinct: keys[i] = random_key(rng); break;
    }
  }
  return keys;
}

std::vector<Key84> sorted_keys(const KeySet& set) {
  std::vector<Key84> out;
  set.for_each_sorted([&](const Key84* keys, size_t n) { out.insert(out.end(), keys, keys + n); });
  return out;
}

// Room for the table's growth to 2^25 slots beside the one it leaves, or
// for `bytes`.
void allow_device_bytes(uint64_t bytes = uint64_t{1} << 30) {
#if defined(GDEDUP_CUDA_STANDIN)
  cuda_standin::Settings settings = cuda_standin::current();
  settings.device_bytes = bytes;
  cuda_standin::set(settings);
#else
  (void)bytes;
#endif
}

TEST(GpuKeySetSlots, AWordGivesBackItsKeyAtEverySizeAndDisplacement) {
  test::Rng rng(5);
  for (uint32_t log2 : {kernels::kMinSetLog2, 23u, 26u, 31u, kernels::kMaxSetLog2}) {
    const uint64_t mask = (uint64_t{1} << log2) - 1;
    for (int i = 0; i < 2000; ++i) {
      const Key84 key = random_key(rng);
      const uint64_t d = rng.below(kernels::max_displacement(log2) + 1);
      const uint64_t slot = (kernels::home_slot(key, log2) + d) & mask;  // wraps round
      const uint64_t word = kernels::slot_word(key, d, log2);
      ASSERT_NE(word, 0u);
      ASSERT_TRUE(kernels::slot_value(word, slot, log2) == key) << "log2 " << log2 << " d " << d;
    }
  }
  // The extremes: all-ones keys at the last slot, the longest displacement.
  const Key84 ones = (Key84{1} << kKeyBits) - 1;
  const uint32_t log2 = kernels::kMinSetLog2;
  const uint64_t most = kernels::max_displacement(log2);
  EXPECT_EQ(most, 2u);
  const uint64_t slot = (kernels::home_slot(ones, log2) + most) & ((uint64_t{1} << log2) - 1);
  EXPECT_TRUE(kernels::slot_value(kernels::slot_word(ones, most, log2), slot, log2) == ones);
}

kernels::SlotSalt salt_of(test::Rng& rng) {
  kernels::SlotSalt salt{};
  for (uint64_t& r : salt.round) r = rng.next();
  return salt;
}

// The salt permutes the 84-bit keys: every key comes back, and keys that
// share their top 40 bits (keys made to share them, as a hostile input's
// are) get homes spread over the table as random keys' are, for any salt.
TEST(GpuKeySetSlots, TheSaltPermutesTheKeysAndSpreadsKeysThatShareTheirTopBits) {
  test::Rng rng(6);
  const Key84 all = (Key84{1} << kKeyBits) - 1;
  for (int s = 0; s < 20; ++s) {
    const kernels::SlotSalt salt = salt_of(rng);
    for (const Key84 key : {Key84{0}, all, random_key(rng), random_key(rng)}) {
      const Key84 value = kernels::salted(key, salt);
      ASSERT_TRUE(value <= all);
      ASSERT_TRUE(kernels::unsalted(value, salt) == key);
    }
    const Key84 top = random_key(rng) & ~((Key84{1} << 44) - 1);
    const uint32_t log2 = kernels::kMinSetLog2;
    const uint64_t n = 20000;
    std::vector<uint64_t> homes;
    for (uint64_t i = 0; i < n; ++i) {
      const Key84 key = top | (rng.next() >> 20);
      homes.push_back(kernels::home_slot(kernels::salted(key, salt), log2));
      ASSERT_TRUE(kernels::unsalted(kernels::salted(key, salt), salt) == key);
    }
    std::sort(homes.begin(), homes.end());
    const uint64_t distinct = std::unique(homes.begin(), homes.end()) - homes.begin();
    // Random homes: n - n^2 / 2^23 distinct, about 19,952.
    EXPECT_GT(distinct, n - 200) << "salt " << s;
  }
}

// Sequential linear probing of `keys` random homes in 2^log2 slots: the
// keys placed further than a slot's word holds.
uint64_t keys_past_the_limit(uint64_t keys, uint32_t log2, uint64_t seed) {
  const uint64_t mask = (uint64_t{1} << log2) - 1;
  const uint64_t most = kernels::max_displacement(log2);
  std::vector<bool> taken(mask + 1);
  test::Rng rng(seed);
  uint64_t past = 0;
  for (uint64_t i = 0; i < keys; ++i) {
    uint64_t d = 0;
    const uint64_t home = rng.next() & mask;
    while (taken[(home + d) & mask]) ++d;
    taken[(home + d) & mask] = true;
    past += d > most ? 1 : 0;
  }
  return past;
}

// The sizing of a new set (kernels/set_sizing.h) against a simulation of
// the table it plans: the most keys each table size is taken for fit it
// with no key past the longest displacement its words hold; the tables of
// powers of two keys are those the model gives (2^24 keys, the benchmark's,
// in 2^26 slots: in 2^25, some 70 lie past the 30 slots a word holds there).
TEST(GpuKeySetSizing, TheMostKeysATableIsTakenForFitItInASimulation) {
  // A plain loop of arithmetic: under AddressSanitizer, the tables up to
  // 2^22 slots check the same code in a tenth of the time.
  const uint32_t last_log2 = test::kAddressSanitizer ? 22 : 25;
  for (uint32_t log2 = kernels::kMinSetLog2; log2 <= last_log2; ++log2) {
    uint64_t most = 0;  // the most keys this table is taken for
    for (uint64_t step = uint64_t{1} << (log2 - 1); step != 0; step >>= 1) {
      if (cuda::table_log2_for(most + step) <= log2) most += step;
    }
    ASSERT_EQ(cuda::table_log2_for(most), log2);
    ASSERT_GT(cuda::table_log2_for(most + 1), log2);
    EXPECT_EQ(keys_past_the_limit(most, log2, 100 + log2), 0u)
        << most << " keys in 2^" << log2 << " slots";
  }
  EXPECT_GT(keys_past_the_limit(uint64_t{1} << 24, 25, 7), 0u);
  EXPECT_EQ(cuda::table_log2_for(0), kernels::kMinSetLog2);
  EXPECT_EQ(cuda::table_log2_for(uint64_t{1} << 20), 24u);
  EXPECT_EQ(cuda::table_log2_for(uint64_t{1} << 24), 26u);
  EXPECT_EQ(cuda::table_log2_for(uint64_t{1} << 26), 27u);
  // From 2^27 slots on, half full.
  EXPECT_EQ(cuda::table_log2_for(uint64_t{1} << 30), 31u);
  EXPECT_EQ(cuda::table_log2_for((uint64_t{1} << 30) + 1), 32u);
}

// Feeds the same keys to both sets in batches of `batch`; every answer and
// count must agree, and at the end their keys.
void expect_same_as_cpu(const std::vector<Key84>& keys, uint64_t batch, GpuKeySet& gpu,
                        KeySet& cpu) {
  std::vector<uint8_t> want(batch), got(batch);
  for (uint64_t begin = 0; begin < keys.size(); begin += batch) {
    const uint64_t n = std::min<uint64_t>(batch, keys.size() - begin);
    const uint64_t fresh = cpu.test_and_insert(keys.data() + begin, n, want.data());
    std::fill(got.begin(), got.end(), 7);
    ASSERT_EQ(gpu.test_and_insert(keys.data() + begin, n, got.data()), fresh)
        << "batch at " << begin;
    for (uint64_t i = 0; i < n; ++i) {
      ASSERT_EQ(got[i], want[i]) << "key " << begin + i;
    }
  }
  ASSERT_EQ(gpu.size(), cpu.size());
  ASSERT_TRUE(sorted_keys(key_set_of(gpu)) == sorted_keys(cpu));
}

TEST(GpuKeySet, AnswersAndKeysMatchTheCpuSetForEveryInputAndBatch) {
  GDEDUP_REQUIRE_GPU();
  allow_device_bytes();
  for (const Kind kind : {Kind::kHeavyDuplicates, Kind::kHotKey, Kind::kDistinct}) {
    for (const uint64_t batch : {uint64_t{1}, uint64_t{7}, uint64_t{4096}, uint64_t{1000000}}) {
      SCOPED_TRACE(std::string(kind_name(kind)) + ", batches of " + std::to_string(batch));
      // Each batch is a device round trip: fewer keys in small ones. Under
      // AddressSanitizer fewer in the large one too: 300,000 distinct keys
      // still make the smallest table grow.
      const uint64_t large = test::kAddressSanitizer ? 300000 : 1200000;
      const uint64_t n = batch == 1 ? 400 : batch == 7 ? 1400 : batch == 4096 ? 30000 : large;
      const std::vector<Key84> keys = keys_of(kind, n, 11 + batch);
      for_each_schedule(batch == 1000000 ? 1 : 2, [&] {
        GpuKeySet gpu;
        KeySet cpu;
        expect_same_as_cpu(keys, batch, gpu, cpu);
        // Probes of keys in and out of the set.
        std::vector<Key84> probe(keys.begin(), keys.begin() + std::min<uint64_t>(n, 5000));
        const std::vector<Key84> absent = keys_of(Kind::kDistinct, 5000, 99);
        probe.insert(probe.end(), absent.begin(), absent.end());
        std::vector<uint8_t> want(probe.size()), got(probe.size());
        cpu.contains(probe.data(), probe.size(), want.data());
        gpu.contains(probe.data(), probe.size(), got.data());
        ASSERT_EQ(got, want);
      });
    }
  }
}

// Keys that repeat every 37 positions, new ones each call: in the stand-in's
// concurrent launches the lanes of a warp drift passes apart, and a key's
// peers in a warp may then hold positions a grid of threads higher in
// lower lanes. The first of a key's positions must lead them (it is the
// occurrence that is new), not the lowest lane: the CPU set's answers in
// every schedule. (With the lowest lane leading, as kernels/warp_ops.h
// once had it, this fails in the concurrent ones.)
TEST(GpuKeySet, TheFirstOfAKeysPositionsLeadsItsPeersInAWarpPassesApart) {
  GDEDUP_REQUIRE_GPU();
  const uint64_t n = uint64_t{1} << 14;
  for_each_schedule(4, [&] {
    GpuKeySet gpu;
    KeySet cpu;
    for (uint64_t call = 0; call < 16; ++call) {
      test::Rng rng(300 + call);
      std::vector<Key84> pool(37);
      for (Key84& k : pool) k = random_key(rng);
      std::vector<Key84> keys(n);
      for (uint64_t i = 0; i < n; ++i) keys[i] = pool[i % pool.size()];
      SCOPED_TRACE("call " + std::to_string(call));
      expect_same_as_cpu(keys, n, gpu, cpu);
    }
  });
}

TEST(GpuKeySet, GrowsOnTheDeviceWhenAProbeRunIsTooLongAndKeepsEveryKey) {
  GDEDUP_REQUIRE_GPU();
  allow_device_bytes();
  // 2^22 slots hold keys at most 2 slots past their home: a million keys
  // overflow it, and the batch runs again in a larger table.
  const std::vector<Key84> keys = keys_of(Kind::kDistinct, 1000000, 3);
  GpuKeySet gpu;
  KeySet cpu;
  expect_same_as_cpu(keys, keys.size(), gpu, cpu);
  EXPECT_GT(gpu.growths(), 0u);
  EXPECT_EQ(gpu.bytes(), gpu.growths() == 0 ? 12u << 22 : gpu.bytes());
  EXPECT_GT(gpu.bytes(), uint64_t{12} << 22);
  EXPECT_LE(gpu.load(), 0.5);
}

TEST(GpuKeySet, SizedForItsKeysItTakesThemWithoutGrowing) {
  GDEDUP_REQUIRE_GPU();
  allow_device_bytes();
  // 300,000 keys half fill no table, but at 2^22 slots a few lie past the
  // 2 slots a word allows: the set is made larger from the start.
  const std::vector<Key84> keys = keys_of(Kind::kDistinct, 300000, 5);
  GpuKeySet gpu(keys.size());
  KeySet cpu;
  expect_same_as_cpu(keys, keys.size(), gpu, cpu);
  EXPECT_EQ(gpu.growths(), 0u);
  EXPECT_EQ(gpu.bytes(), uint64_t{12} << 23);
}

#if defined(GDEDUP_HAVE_CUDA)
// A set made for 2^20 to 2^26 keys takes that many random keys (made on the
// device, as the benchmark makes them) in one call without growing: the
// benchmark's own exact-set rows must time no growth.
TEST(GpuKeySet, SizedForTwoToTheTwentyToTwentySixKeysItNeverGrows) {
  GDEDUP_REQUIRE_GPU();
  // Under AddressSanitizer the stand-in's kernels run ten times slower, and
  // the largest sizes would take minutes to check arithmetic that the
  // plain build checks: its code is the same from 2^20 keys on.
  const uint32_t last_log2 = test::kAddressSanitizer ? 22 : 26;
  if (last_log2 < 26) std::printf("under AddressSanitizer: 2^20 to 2^%u keys\n", last_log2);
  const uint64_t most = uint64_t{1} << last_log2;
  // The largest table, the keys and their answers.
  allow_device_bytes((uint64_t{12} << cuda::table_log2_for(most)) +
                     most * (sizeof(Key84) + 1) + (uint64_t{64} << 20));
  Key84* keys = nullptr;
  uint8_t* answers = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&keys), most * sizeof(Key84)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&answers), most), cudaSuccess);
  for (uint32_t log2_keys = 20; log2_keys <= last_log2; ++log2_keys) {
    const uint64_t n = uint64_t{1} << log2_keys;
    SCOPED_TRACE(std::to_string(n) + " keys");
    cuda::launch_random_keys84(keys, n, 0x5e7000ull + log2_keys, cuda::launch_shape(0), nullptr);
    ASSERT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
    GpuKeySet gpu(n);
    // 2^-84 a pair that two random keys are one: none of them is.
    EXPECT_EQ(gpu.test_and_insert(keys, n, answers), n);
    EXPECT_EQ(gpu.growths(), 0u);
    EXPECT_EQ(gpu.bytes(), uint64_t{12} << cuda::table_log2_for(n));
  }
  cudaFree(keys);
  cudaFree(answers);
}
#endif

TEST(GpuKeySet, StartsWithTheKeysOfAHostSet) {
  GDEDUP_REQUIRE_GPU();
  const std::vector<Key84> old_keys = keys_of(Kind::kHeavyDuplicates, 20000, 21);
  KeySet start;
  start.insert(old_keys.data(), old_keys.size());
  GpuKeySet gpu = gpu_key_set_of(start, 0);
  EXPECT_EQ(gpu.size(), start.size());
  KeySet cpu = start.clone();
  // Old keys and new ones mixed.
  std::vector<Key84> keys = keys_of(Kind::kHeavyDuplicates, 20000, 22);
  keys.insert(keys.end(), old_keys.begin(), old_keys.begin() + 5000);
  expect_same_as_cpu(keys, 4096, gpu, cpu);
}

#if defined(GDEDUP_HAVE_CUDA)
TEST(GpuKeySet, DeviceBuffersGiveTheAnswersOfHostOnes) {
  GDEDUP_REQUIRE_GPU();
  const std::vector<Key84> keys = keys_of(Kind::kHotKey, 10000, 31);
  Key84* device_keys = nullptr;
  uint8_t* device_answers = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&device_keys), keys.size() * sizeof(Key84)),
            cudaSuccess);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&device_answers), keys.size()), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(device_keys, keys.data(), keys.size() * sizeof(Key84),
                       cudaMemcpyHostToDevice),
            cudaSuccess);
  GpuKeySet gpu;
  KeySet cpu;
  std::vector<uint8_t> want(keys.size()), got(keys.size());
  const uint64_t fresh = cpu.test_and_insert(keys.data(), keys.size(), want.data());
  EXPECT_EQ(gpu.test_and_insert(device_keys, keys.size(), device_answers), fresh);
  ASSERT_EQ(cudaMemcpy(got.data(), device_answers, got.size(), cudaMemcpyDeviceToHost),
            cudaSuccess);
  EXPECT_EQ(got, want);
  cudaFree(device_keys);
  cudaFree(device_answers);
}
#endif

// Every later call of a set whose call failed part way is refused: the
// failed call's first pass entered its keys, none answered new, and a
// later batch would have answered them present.
void expect_refused_after(GpuKeySet& gpu, const std::vector<Key84>& failed_keys) {
  const std::vector<Key84> some(failed_keys.begin(), failed_keys.begin() + 1000);
  std::vector<uint8_t> answers(some.size());
  const auto expect_refusal = [](const auto& call, const char* what) {
    try {
      call();
      ADD_FAILURE() << what << " was answered after a failed call";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("cannot be used any more: a call failed part way"),
                std::string::npos)
          << e.what();
    }
  };
  expect_refusal([&] { gpu.test_and_insert(some.data(), some.size(), answers.data()); },
                 "test_and_insert");
  expect_refusal([&] { gpu.contains(some.data(), some.size(), answers.data()); }, "contains");
  expect_refusal([&] { key_set_of(gpu); }, "key_set_of");
}

TEST(GpuKeySet, GrowingPastItsCapFailsAsSetFullAndTheSetRefusesLaterCalls) {
  GDEDUP_REQUIRE_GPU();
  GpuKeySetOptions options;
  options.max_bytes = uint64_t{12} << kernels::kMinSetLog2;  // the smallest table
  GpuKeySet gpu(0, options);
  // A first call that fits is answered.
  const std::vector<Key84> few = keys_of(Kind::kDistinct, 1000, 40);
  std::vector<uint8_t> few_answers(few.size());
  EXPECT_EQ(gpu.test_and_insert(few.data(), few.size(), few_answers.data()), few.size());
  const std::vector<Key84> keys = keys_of(Kind::kDistinct, 1000000, 41);
  std::vector<uint8_t> answers(keys.size());
  try {
    gpu.test_and_insert(keys.data(), keys.size(), answers.data());
    FAIL() << "a million keys fit 2^22 slots";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::set_full);
    EXPECT_NE(std::string(e.what()).find("more than the cap of 48.0 MiB"), std::string::npos)
        << e.what();
  }
  expect_refused_after(gpu, keys);
  // A cap below the smallest table refuses the set at once.
  options.max_bytes = 1 << 20;
  try {
    GpuKeySet small(0, options);
    FAIL() << "a set of 48 MiB was made under a cap of 1 MiB";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::set_full);
  }
}

#if defined(GDEDUP_CUDA_STANDIN)
TEST(GpuKeySet, GrowingPastTheDevicesMemoryFailsAsDeviceMemory) {
  const cuda_standin::Settings saved = cuda_standin::current();
  cuda_standin::Settings small = saved;
  small.device_bytes = 100u << 20;  // the smallest table, not a second one twice its size
  cuda_standin::set(small);
  {
    GpuKeySet gpu;
    const std::vector<Key84> keys = keys_of(Kind::kDistinct, 1000000, 43);
    std::vector<uint8_t> answers(keys.size());
    try {
      gpu.test_and_insert(keys.data(), keys.size(), answers.data());
      ADD_FAILURE() << "the table grew past the device's memory";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::device_memory);
      EXPECT_NE(std::string(e.what()).find("needs a table of 96.0 MiB on GPU 0"),
                std::string::npos)
          << e.what();
    }
    expect_refused_after(gpu, keys);
  }
  cuda_standin::set(saved);
}

// Keys made to share their top 40 bits (as inputs searched for keys that
// share them would be: the keys' hash and seed are public) are placed by
// the set's salt as random keys are: the set takes them at the size their
// count plans (a set made for them), within a factor of 2 (a doubling that
// falls between batches), and answers them as a plain set does. With homes
// from the keys' own top bits every key of them has one home, and the set
// doubled until no device memory was left.
TEST(GpuKeySet, KeysSharingTheirTopFortyBitsTakeNoMoreThanTheirCountPlans) {
  GDEDUP_REQUIRE_GPU();
  allow_device_bytes();
  test::Rng rng(51);
  const Key84 top = random_key(rng) & ~((Key84{1} << 44) - 1);
  const uint64_t n = 300000;
  std::vector<Key84> keys(n);
  // Half as many distinct keys as positions: an odd multiplier keeps them
  // distinct below 2^44.
  const uint64_t low = (uint64_t{1} << 44) - 1;
  for (Key84& k : keys) k = top | ((rng.below(n / 2) * 0x9e3779b97f4bull) & low);
  // The answers of a plain set: the first occurrence of each key is new.
  // (Not the CPU's KeySet, whose shards such keys flood.)
  std::vector<Key84> seen;
  std::vector<uint8_t> want(n);
  {
    std::vector<std::pair<Key84, uint64_t>> by_key(n);
    for (uint64_t i = 0; i < n; ++i) by_key[i] = {keys[i], i};
    std::sort(by_key.begin(), by_key.end());
    for (uint64_t i = 0; i < n; ++i) {
      want[by_key[i].second] = i > 0 && by_key[i - 1].first == by_key[i].first ? 1 : 0;
      if (want[by_key[i].second] == 0) seen.push_back(by_key[i].first);
    }
  }
  for_each_schedule(2, [&] {
    GpuKeySet gpu;
    const uint64_t batch = 4096;
    std::vector<uint8_t> got(batch);
    uint64_t fresh = 0;
    for (uint64_t begin = 0; begin < n; begin += batch) {
      const uint64_t m = std::min(batch, n - begin);
      fresh += gpu.test_and_insert(keys.data() + begin, m, got.data());
      for (uint64_t i = 0; i < m; ++i) ASSERT_EQ(got[i], want[begin + i]) << "key " << begin + i;
    }
    EXPECT_EQ(fresh, seen.size());
    EXPECT_EQ(gpu.size(), seen.size());
    const uint64_t planned = GpuKeySet(seen.size()).bytes();
    EXPECT_LE(gpu.bytes(), 2 * planned) << "planned " << planned;
    std::vector<Key84> held;
    gpu.for_each_key([&](const Key84* k, size_t m) { held.insert(held.end(), k, k + m); });
    std::sort(held.begin(), held.end());
    EXPECT_TRUE(held == seen);
  });
}

// A call from host memory goes pass by pass through two buffers, each
// pass's keys copied in while the one before is answered: passes of 5,000
// keys from pageable, pinned and device memory give the CPU set's answers,
// through growth, and a caller's pinned keys are copied in place, once a
// pass.
TEST(GpuKeySet, PassesFromHostMemoryAnswerAsOneCall) {
  GDEDUP_REQUIRE_GPU();
  allow_device_bytes();
  const uint64_t n = 200000 + 7, pass = 5000;
  const std::vector<Key84> keys = keys_of(Kind::kHeavyDuplicates, n, 61);
  KeySet cpu;
  std::vector<uint8_t> want(n);
  const uint64_t fresh = cpu.test_and_insert(keys.data(), n, want.data());
  Key84* pinned_keys = nullptr;
  uint8_t* pinned_answers = nullptr;
  Key84* device_keys = nullptr;
  uint8_t* device_answers = nullptr;
  ASSERT_EQ(cudaMallocHost(reinterpret_cast<void**>(&pinned_keys), n * sizeof(Key84)),
            cudaSuccess);
  ASSERT_EQ(cudaMallocHost(reinterpret_cast<void**>(&pinned_answers), n), cudaSuccess);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&device_keys), n * sizeof(Key84)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&device_answers), n), cudaSuccess);
  std::copy(keys.begin(), keys.end(), pinned_keys);
  ASSERT_EQ(cudaMemcpy(device_keys, keys.data(), n * sizeof(Key84), cudaMemcpyHostToDevice),
            cudaSuccess);
  std::vector<uint8_t> pageable_answers(n);
  for_each_schedule(2, [&] {
    struct Buffers {
      const char* name;
      const Key84* keys;
      uint8_t* answers;
    };
    for (const Buffers& b : {Buffers{"pageable", keys.data(), pageable_answers.data()},
                             Buffers{"pinned", pinned_keys, pinned_answers},
                             Buffers{"device keys, pageable answers", device_keys,
                                     pageable_answers.data()},
                             Buffers{"pinned keys, device answers", pinned_keys,
                                     device_answers}}) {
      SCOPED_TRACE(b.name);
      GpuKeySetOptions options;
      options.pass_keys = pass;
      GpuKeySet gpu(0, options);
#if defined(GDEDUP_CUDA_STANDIN)
      const uint64_t copies_before = cuda_standin::copies_touching(pinned_keys);
#endif
      ASSERT_EQ(gpu.test_and_insert(b.keys, n, b.answers), fresh);
      std::vector<uint8_t> got(n);
      ASSERT_EQ(cudaMemcpy(got.data(), b.answers, n, cudaMemcpyDefault), cudaSuccess);
      ASSERT_EQ(got, want);
      EXPECT_GT(gpu.growths(), 0u);
#if defined(GDEDUP_CUDA_STANDIN)
      if (b.keys == pinned_keys) {
        EXPECT_EQ(cuda_standin::copies_touching(pinned_keys) - copies_before,
                  (n + pass - 1) / pass);
      }
#endif
      // Every key is in; as many absent ones are not.
      gpu.contains(b.keys, n, b.answers);
      ASSERT_EQ(cudaMemcpy(got.data(), b.answers, n, cudaMemcpyDefault), cudaSuccess);
      ASSERT_EQ(got, std::vector<uint8_t>(n, 1));
    }
  });
  cudaFreeHost(pinned_keys);
  cudaFreeHost(pinned_answers);
  cudaFree(device_keys);
  cudaFree(device_answers);
}
#endif

}  // namespace
}  // namespace gdedup
