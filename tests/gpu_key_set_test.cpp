// The exact set on a device (GpuKeySet) against the CPU's KeySet: the same
// answers batch by batch and the same keys at the end, on random keys with
// heavy duplicates, one hot key at 15/16 of a batch and distinct keys, in
// batches of 1, 7, 4096 and 1e6 keys, through growth and from a set that
// holds keys already; repeats of keys that meet in warps passes apart; its
// slot words, and its cap. Without a GPU this runs
// on the CUDA stand-in (tests/cuda_standin), one-at-a-time and concurrent
// launches.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "../kernels/set_slots.h"
#include "gdedup/error.h"
#include "gdedup/gpu.h"
#include "gdedup/key_set.h"
#include "require_gpu.h"
#include "standin_schedules.h"
#include "test_util.h"

#if defined(GDEDUP_HAVE_CUDA)
#include <cuda_runtime_api.h>
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

// Room for the table's growth to 2^25 slots beside the one it leaves.
void allow_device_bytes() {
#if defined(GDEDUP_CUDA_STANDIN)
  cuda_standin::Settings settings = cuda_standin::current();
  settings.device_bytes = uint64_t{1} << 30;
  cuda_standin::set(settings);
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
      ASSERT_TRUE(kernels::slot_key(word, slot, log2) == key) << "log2 " << log2 << " d " << d;
    }
  }
  // The extremes: all-ones keys at the last slot, the longest displacement.
  const Key84 ones = (Key84{1} << kKeyBits) - 1;
  const uint32_t log2 = kernels::kMinSetLog2;
  const uint64_t most = kernels::max_displacement(log2);
  EXPECT_EQ(most, 2u);
  const uint64_t slot = (kernels::home_slot(ones, log2) + most) & ((uint64_t{1} << log2) - 1);
  EXPECT_TRUE(kernels::slot_key(kernels::slot_word(ones, most, log2), slot, log2) == ones);
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
      // Each batch is a device round trip: fewer keys in small ones.
      const uint64_t n = batch == 1 ? 400 : batch == 7 ? 1400 : batch == 4096 ? 30000 : 1200000;
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

TEST(GpuKeySet, GrowingPastItsCapFailsAsSetFull) {
  GDEDUP_REQUIRE_GPU();
  GpuKeySetOptions options;
  options.max_bytes = uint64_t{12} << kernels::kMinSetLog2;  // the smallest table
  GpuKeySet gpu(0, options);
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
  GpuKeySet gpu;
  const std::vector<Key84> keys = keys_of(Kind::kDistinct, 1000000, 43);
  std::vector<uint8_t> answers(keys.size());
  try {
    gpu.test_and_insert(keys.data(), keys.size(), answers.data());
    ADD_FAILURE() << "the table grew past the device's memory";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::device_memory);
    EXPECT_NE(std::string(e.what()).find("needs a table of 96.0 MiB on GPU 0"), std::string::npos)
        << e.what();
  }
  cuda_standin::set(saved);
}
#endif

}  // namespace
}  // namespace gdedup
