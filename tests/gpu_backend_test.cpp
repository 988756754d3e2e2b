// The CUDA backend against the scalar reference of layout.h: answers and
// filter bytes identical. Without a GPU these run on the CUDA stand-in
// (tests/cuda_standin: the kernels on a CPU device, streams on threads in
// seeded random interleavings), several schedules each; where neither a GPU
// nor the stand-in is there they skip, printing why. The GpuBlockOps and
// GpuBatchPlan tests run the kernels' device-independent code
// (kernels/block_ops.h, src/cuda/batch_plan.h) on the CPU everywhere.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <iostream>
#include <memory>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "../kernels/block_ops.h"
#include "cuda/batch_plan.h"
#include "gdedup/backend.h"
#include "gdedup/error.h"
#include "gdedup/filter.h"
#include "gdedup/gpu.h"
#include "gdedup/host_buffer.h"
#include "gdedup/layout.h"
#include "require_gpu.h"
#include "standin_schedules.h"
#include "test_util.h"

#if defined(GDEDUP_HAVE_CUDA)
#include <cuda_runtime_api.h>
#endif
#if defined(GDEDUP_CUDA_STANDIN)
#include <thread>

#include "cuda_standin.h"
#endif
#if defined(GDEDUP_HAVE_CUDA)
#include "../kernels/filter_kernels.h"
#endif

namespace gdedup {
namespace {

using test::layout_name;
using test::random_keys;
// `count` keys drawn from a pool of `distinct`: long runs of repeats per block.
const auto& pooled_keys = test::keys_with_duplicates;


// The scalar reference: one key at a time, in order.
struct Reference {
  std::vector<uint32_t> words;
  FilterRef f;

  Reference(uint64_t num_blocks, const Layout& l)
      : words(num_blocks * l.block_words(), 0), f(whole_filter(words.data(), num_blocks, l)) {}
  Reference(const Reference&) = delete;  // f points into words

  uint64_t test_and_set(const std::vector<uint64_t>& keys, std::vector<uint8_t>* answers) {
    uint64_t fresh = 0;
    answers->assign(keys.size(), 0);
    for (size_t i = 0; i < keys.size(); ++i) {
      const bool present = key_test_and_set(f, keys[i]);
      (*answers)[i] = present ? 1 : 0;
      fresh += present ? 0 : 1;
    }
    return fresh;
  }

  std::vector<uint8_t> contains(const std::vector<uint64_t>& keys) const {
    std::vector<uint8_t> out(keys.size());
    for (size_t i = 0; i < keys.size(); ++i) out[i] = key_contains(f, keys[i]);
    return out;
  }
};

// Calls fn.template operator()<BW, BPW>() for the layout's geometry.
template <class Fn>
void with_layout(const Layout& l, Fn&& fn) {
  dispatch_layout(
      l,
      [&](auto words, auto bits) {
        fn.template operator()<decltype(words)::value, decltype(bits)::value>();
      },
      [] { FAIL() << "no such layout"; });
}

// ---------------------------------------------------------------------------
// Device-independent parts of the kernels, run on the CPU.

struct CheckMasks {
  uint64_t seed;
  template <uint32_t BW, uint32_t BPW>
  void operator()() const {
    for (uint64_t fp : random_keys(2000, seed)) {
      uint32_t m[BW];
      kernels::counted_masks<BW, BPW>(fp, m);
      for (uint32_t j = 0; j < BW; ++j) {
        ASSERT_EQ(m[j], word_mask(fp, j, BW, BPW)) << "word " << j;
      }
    }
  }
};

TEST(GpuBlockOps, MasksEqualLayoutWordMask) {
  for (const Layout& l : kLayouts) {
    SCOPED_TRACE(layout_name(l));
    with_layout(l, CheckMasks{7});
  }
}

// add's kernel body on the CPU: OR the missing lanes in, key by key; and
// contains' body: both must match the reference exactly.
struct CheckAddContains {
  uint64_t num_blocks;
  Layout layout;
  template <uint32_t BW, uint32_t BPW>
  void operator()() const {
    Reference ref(num_blocks, layout);
    std::vector<uint32_t> words(ref.words.size(), 0);
    std::vector<uint8_t> ignored;
    const std::vector<uint64_t> keys = random_keys(3000, num_blocks);
    ref.test_and_set(keys, &ignored);
    for (uint64_t fp : keys) {
      uint32_t* block = words.data() + block_index(fp, num_blocks) * BW;
      uint32_t w[BW];
      kernels::load_block<BW>(block, w);
      uint64_t missing[BW / 2];
      kernels::block_missing<BW, BPW>(w, fp, missing);
      for (uint32_t q = 0; q < BW / 2; ++q) {
        block[2 * q] |= static_cast<uint32_t>(missing[q]);
        block[2 * q + 1] |= static_cast<uint32_t>(missing[q] >> 32);
      }
    }
    ASSERT_EQ(words, ref.words);
    const std::vector<uint64_t> probes = random_keys(3000, num_blocks + 1);
    const std::vector<uint8_t> expected = ref.contains(probes);
    for (size_t i = 0; i < probes.size(); ++i) {
      uint32_t w[BW];
      kernels::load_block_readonly<BW>(
          words.data() + block_index(probes[i], num_blocks) * BW, w);
      const bool present = kernels::block_contains<BW, BPW>(w, probes[i]);
      ASSERT_EQ(present, expected[i] != 0) << i;
    }
  }
};

TEST(GpuBlockOps, AddAndContainsMatchReference) {
  for (const Layout& l : kLayouts) {
    for (uint64_t blocks : {1ull, 7ull, 1000ull}) {
      SCOPED_TRACE(layout_name(l) + ", " + std::to_string(blocks) + " blocks");
      with_layout(l, CheckAddContains{blocks, l});
    }
  }
}

// test_and_set's steps as the device runs them -- stable sort by block,
// segmented exclusive OR-scan of the masks, answers, one write per segment
// -- done on the CPU with the kernels' own functions, answers computed last
// to first, since the device gives its threads no order.
struct SimulateTestAndSet {
  uint64_t num_blocks;
  Layout layout;
  const std::vector<uint64_t>* keys;
  uint64_t batch;

  template <uint32_t BW, uint32_t BPW>
  void operator()() const {
    Reference ref(num_blocks, layout);
    std::vector<uint8_t> expected;
    const uint64_t expected_fresh = ref.test_and_set(*keys, &expected);

    std::vector<uint32_t> words(ref.words.size(), 0);
    std::vector<uint8_t> answers(keys->size(), 0xee);
    uint64_t fresh = 0;
    for (uint64_t offset = 0; offset < keys->size(); offset += batch) {
      const uint64_t n = std::min<uint64_t>(batch, keys->size() - offset);
      const uint64_t* fps = keys->data() + offset;
      std::vector<uint32_t> order(n);
      std::iota(order.begin(), order.end(), 0u);
      std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        return block_index(fps[a], num_blocks) < block_index(fps[b], num_blocks);
      });
      const auto block_of = [&](uint64_t t) { return block_index(fps[order[t]], num_blocks); };
      std::vector<kernels::BlockMask<BW>> before(n);
      for (uint64_t t = 1; t < n; ++t) {
        before[t] = block_of(t) == block_of(t - 1)
                        ? kernels::OrMasks<BW>{}(before[t - 1],
                                                  kernels::mask_of<BW, BPW>(fps[order[t - 1]]))
                        : kernels::BlockMask<BW>{};
      }
      for (uint64_t t = n; t-- > 0;) {
        uint32_t w[BW];
        kernels::load_block<BW>(words.data() + block_of(t) * BW, w);
        const bool present = kernels::present_after<BW, BPW>(w, before[t], fps[order[t]]);
        answers[offset + order[t]] = present ? 1 : 0;
        fresh += present ? 0 : 1;
      }
      for (uint64_t t = 0; t < n; ++t) {
        if (t + 1 < n && block_of(t + 1) == block_of(t)) continue;
        uint32_t* block = words.data() + block_of(t) * BW;
        uint32_t w[BW];
        kernels::load_block<BW>(block, w);
        kernels::add_segment<BW, BPW>(w, before[t], fps[order[t]]);
        kernels::store_block<BW>(block, w);
      }
    }
    ASSERT_EQ(fresh, expected_fresh);
    ASSERT_EQ(answers, expected);
    ASSERT_EQ(words, ref.words);
  }
};

TEST(GpuBlockOps, SegmentedScanMatchesSequentialReference) {
  const std::vector<uint64_t> random = random_keys(20000, 11);
  const std::vector<uint64_t> pooled = pooled_keys(20000, 50, 12);
  for (const Layout& l : kLayouts) {
    for (uint64_t blocks : {1ull, 5ull, 300ull, 100003ull}) {
      for (const auto* keys : {&random, &pooled}) {
        for (uint64_t batch : {777ull, 20000ull, 50000ull}) {
          SCOPED_TRACE(layout_name(l) + ", " + std::to_string(blocks) + " blocks, " +
                       (keys == &random ? "random" : "pooled") + " keys, batch " +
                       std::to_string(batch));
          with_layout(l, SimulateTestAndSet{blocks, l, keys, batch});
        }
      }
    }
  }
}

TEST(GpuBlockOps, SortBitsCoverLargeFilters) {
  // 2^40 blocks: the sort runs on all 41 bits of the block index.
  const uint64_t blocks = (uint64_t{1} << 40) + 12345;
  EXPECT_EQ(kernels::bit_width(blocks - 1), 41u);
  for (uint64_t fp : random_keys(1000, 3)) ASSERT_LT(block_index(fp, blocks), blocks);
  EXPECT_EQ(kernels::bit_width(0), 0u);  // one block: the kernel sorts on 1 bit
}

TEST(GpuBlockOps, TableEntryKeepsTheLargestBlockAndPosition) {
  for (uint64_t block : {uint64_t{0}, uint64_t{12345}, kernels::kMaxTableBlocks - 1}) {
    for (uint64_t position : {uint64_t{0}, kernels::kEntryPositions - 1}) {
      const uint64_t entry = kernels::table_entry(block, position);
      for (uint64_t e : {entry, entry | kernels::kOtherFingerprint}) {
        EXPECT_EQ(kernels::entry_tag(e), block + 1);
        EXPECT_EQ(kernels::entry_position(e), position);
      }
    }
  }
  EXPECT_EQ(kernels::entry_tag(0), 0u);  // an empty entry names no block
}

// ---------------------------------------------------------------------------
// Batch planning, on the CPU.

uint64_t fake_slot_bytes(uint64_t keys) { return keys * 25 + 1000; }

TEST(GpuBatchPlan, AutomaticBatchWhenMemoryIsPlenty) {
  EXPECT_EQ(cuda::plan_batch_keys(uint64_t{1} << 30, uint64_t{100} << 30, 0, 3,
                                  uint64_t{1} << 30, fake_slot_bytes),
            cuda::kAutoBatchKeys);
  EXPECT_EQ(cuda::plan_batch_keys(uint64_t{1} << 30, uint64_t{100} << 30, 1000, 3,
                                  uint64_t{1} << 30, fake_slot_bytes),
            1000u);
}

TEST(GpuBatchPlan, HalvesTheBatchWhenMemoryIsShort) {
  const uint64_t filter = uint64_t{1} << 30;
  const uint64_t free_bytes = filter + cuda::kDeviceReserveBytes + 3 * fake_slot_bytes(1 << 20);
  EXPECT_EQ(cuda::plan_batch_keys(filter, free_bytes, 0, 3, uint64_t{1} << 30, fake_slot_bytes),
            uint64_t{1} << 20);
}

TEST(GpuBatchPlan, FilterLargerThanFreeMemoryGivesTheMessage) {
  try {
    cuda::plan_batch_keys(5000000000ull, 4000000000ull, 0, 3, uint64_t{1} << 30,
                          fake_slot_bytes);
    FAIL() << "no exception";
  } catch (const UsageError& e) {
    FAIL() << "a usage error: " << e.what();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "not enough device memory: the filter needs 5000000000 bytes, its batch "
                 "buffers at least 4918200 more and 268435456 stay reserved, but 4000000000 are "
                 "free");
    // The command line's advice comes from the kind (cli/error_advice.h).
    EXPECT_EQ(e.kind(), ErrorKind::device_memory);
    EXPECT_EQ(e.needed(), 5000000000ull + 4918200 + cuda::kDeviceReserveBytes);
    EXPECT_EQ(e.available(), 4000000000ull);
  }
  // Fits alone but leaves no room for the smallest batches.
  EXPECT_THROW(cuda::plan_batch_keys(1000, 1000 + cuda::kDeviceReserveBytes + 10, 0, 3,
                                     uint64_t{1} << 30, fake_slot_bytes),
               Error);
}

TEST(GpuBatchPlan, OversizedRequestIsAUsageError) {
  EXPECT_THROW(cuda::plan_batch_keys(1000, uint64_t{1} << 40, (uint64_t{1} << 30) + 1, 3,
                                     uint64_t{1} << 30, fake_slot_bytes),
               UsageError);
}

// ---------------------------------------------------------------------------
// The backend on a device.

// Where a GPU (or the stand-in) is usable: what the device says of itself.
// Elsewhere: the reason, the same one make_gpu_backend gives.
TEST(GpuAvailability, DescribesTheDeviceOrGivesAReason) {
  std::string why;
  if (gpu_available(&why)) {
    const GpuDeviceInfo info = gpu_device_info();
    std::cout << "a usable GPU: " << info.name << ", compute capability " << info.compute_major
              << "." << info.compute_minor << ", " << info.total_bytes << " bytes\n";
    EXPECT_FALSE(info.name.empty());
    EXPECT_GE(info.compute_major, 9);
    EXPECT_GT(info.multiprocessors, 0);
    EXPECT_GT(info.total_bytes, 0u);
    EXPECT_LE(info.free_bytes, info.total_bytes);
    return;
  }
  EXPECT_FALSE(why.empty());
  std::cout << "gpu_available() is false: " << why << "\n";
  Filter filter(FilterParams{64, {256, 8}, 1});
  try {
    make_gpu_backend(filter);
    FAIL() << "make_gpu_backend succeeded without a usable GPU";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), why);
    EXPECT_EQ(e.kind(), ErrorKind::no_device);
  }
}

#if defined(GDEDUP_HAVE_CUDA)
// A device number past the last one is refused, naming it and how many
// devices there are (the stand-in has one: cudaGetDeviceCount reports 1 and
// cudaSetDevice refuses any other number).
TEST(GpuAvailability, ADeviceNumberPastTheLastIsRefusedWithTheCount) {
  std::string why;
  if (!gpu_available(&why)) GTEST_SKIP() << why;
  int count = 0;
  ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  ASSERT_GE(count, 1);
  const std::string expected = "there is no CUDA device " + std::to_string(count) +
                               "; this machine has " + std::to_string(count) + " (0 to " +
                               std::to_string(count - 1) + ")";
  EXPECT_FALSE(gpu_available(&why, count));
  EXPECT_EQ(why, expected);
  EXPECT_FALSE(gpu_available(&why, -1));
  Filter filter(FilterParams{64, {256, 8}, 1});
  GpuOptions options;
  options.device = count;
  try {
    make_gpu_backend(filter, options);
    FAIL() << "make_gpu_backend ran on device " << count << " of " << count;
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), expected);
    EXPECT_EQ(e.kind(), ErrorKind::no_device);
  }
  options.device = count - 1;
  auto backend = make_gpu_backend(filter, options);
  EXPECT_NE(backend->name().find("device " + std::to_string(count - 1)), std::string::npos)
      << backend->name();
}
#endif

std::vector<uint32_t> filter_words(const Filter& f) {
  return std::vector<uint32_t>(f.words(), f.words() + f.params().words());
}

TEST(GpuBackend, TestAndSetMatchesReferenceForAllLayoutsAndBatches) {
  GDEDUP_REQUIRE_GPU();
  const uint64_t n = 20000;
  const std::vector<uint64_t> random = random_keys(n, 21);
  const std::vector<uint64_t> pooled = pooled_keys(n, 100, 22);
  for (const Layout& l : kLayouts) {
    for (uint64_t blocks : {1ull, 997ull, 65537ull}) {
      for (const auto* keys : {&random, &pooled}) {
        for (uint64_t batch : {uint64_t{4093}, n, 4 * n}) {
          SCOPED_TRACE(layout_name(l) + ", " + std::to_string(blocks) + " blocks, " +
                       (keys == &random ? "random" : "pooled") + " keys, batch " +
                       std::to_string(batch));
          Reference ref(blocks, l);
          std::vector<uint8_t> expected;
          const uint64_t expected_fresh = ref.test_and_set(*keys, &expected);

          Filter filter(FilterParams{blocks, l, 5});
          auto backend = make_gpu_backend(filter, GpuOptions{0, batch});
          std::vector<uint8_t> answers(n, 0xee);
          ASSERT_EQ(backend->test_and_set(keys->data(), n, answers.data()), expected_fresh);
          ASSERT_EQ(answers, expected);
          backend->sync_to_host();
          ASSERT_EQ(filter_words(filter), ref.words);
          EXPECT_EQ(filter.counters().insertions, expected_fresh);
          auto* gpu = dynamic_cast<GpuBackend*>(backend.get());
          ASSERT_NE(gpu, nullptr);
          EXPECT_EQ(gpu->device_set_bits(), filter.count_set_bits());
        }
      }
    }
  }
}

// Fingerprints that repeat every 37 positions, new ones each call: in the
// stand-in's concurrent launches the lanes of a warp drift passes apart, and
// a fingerprint's peers in a warp may hold positions a grid of threads
// higher in lower lanes. The first of its positions must lead them into the
// chunk's table (it is the occurrence that is new), not the lowest lane:
// the reference's answers and bits in every schedule. (With the lowest lane
// leading, as kernels/warp_ops.h once had it, this fails in the concurrent
// ones.)
TEST(GpuBackend, TheFirstOfAFingerprintsPositionsLeadsItsPeersInAWarpPassesApart) {
  GDEDUP_REQUIRE_GPU();
  const uint64_t n = uint64_t{1} << 14, blocks = 65537;
  for_each_schedule(4, [&] {
    Reference ref(blocks, kLayouts[2]);
    Filter filter(FilterParams{blocks, kLayouts[2], 5});
    auto backend = make_gpu_backend(filter, GpuOptions{0, n});
    for (uint64_t call = 0; call < 16; ++call) {
      SCOPED_TRACE("call " + std::to_string(call));
      const std::vector<uint64_t> pool = random_keys(37, 400 + call);
      std::vector<uint64_t> keys(n);
      for (uint64_t i = 0; i < n; ++i) keys[i] = pool[i % pool.size()];
      std::vector<uint8_t> expected, answers(n, 0xee);
      const uint64_t fresh = ref.test_and_set(keys, &expected);
      EXPECT_EQ(backend->test_and_set(keys.data(), n, answers.data()), fresh);
      EXPECT_EQ(answers, expected);
    }
    backend->sync_to_host();
    EXPECT_EQ(filter_words(filter), ref.words);
  });
}

TEST(GpuBackend, LaterCallsSeeEarlierBitsAndTheInitialFilter) {
  GDEDUP_REQUIRE_GPU();
  for_each_schedule(8, [] {
    for (const Layout& l : kLayouts) {
      SCOPED_TRACE(layout_name(l));
      const uint64_t blocks = 4099;
      Reference ref(blocks, l);
      Filter filter(FilterParams{blocks, l, 5});
      // Bits present before the backend exists must be on the device.
      std::vector<uint8_t> ignored;
      ref.test_and_set(random_keys(5000, 31), &ignored);
      std::memcpy(filter.words(), ref.words.data(), ref.words.size() * sizeof(uint32_t));
      auto backend = make_gpu_backend(filter, GpuOptions{0, 1000});
      for (int call = 0; call < 4; ++call) {
        const std::vector<uint64_t> keys = pooled_keys(3000 + call * 1000, 2000, 40 + call);
        std::vector<uint8_t> expected, answers(keys.size());
        const uint64_t fresh = ref.test_and_set(keys, &expected);
        ASSERT_EQ(backend->test_and_set(keys.data(), keys.size(), answers.data()), fresh);
        ASSERT_EQ(answers, expected) << "call " << call;
      }
      backend->sync_to_host();
      ASSERT_EQ(filter_words(filter), ref.words);
    }
  });
}

TEST(GpuBackend, AddAndContainsMatchReference) {
  GDEDUP_REQUIRE_GPU();
  for_each_schedule(2, [] {
    for (const Layout& l : kLayouts) {
      for (uint64_t batch : {1000ull, 0ull}) {
        SCOPED_TRACE(layout_name(l) + ", batch " + std::to_string(batch));
        const uint64_t blocks = 30011;
        Reference ref(blocks, l);
        const std::vector<uint64_t> keys = random_keys(100000, 51);
        std::vector<uint8_t> ignored;
        ref.test_and_set(keys, &ignored);

        Filter filter(FilterParams{blocks, l, 5});
        auto backend = make_gpu_backend(filter, GpuOptions{0, batch});
        backend->add(keys.data(), keys.size());
        // Half inserted, half new: the new ones are mostly absent.
        std::vector<uint64_t> probes = random_keys(50000, 52);
        probes.insert(probes.end(), keys.begin(), keys.begin() + 50000);
        std::vector<uint8_t> present(probes.size(), 0xee);
        backend->contains(probes.data(), probes.size(), present.data());
        ASSERT_EQ(present, ref.contains(probes));
        backend->sync_to_host();
        ASSERT_EQ(filter_words(filter), ref.words);
        EXPECT_EQ(filter.counters().insertions, keys.size());
      }
    }
  });
}

// A fingerprint of block `block` of `num_blocks`, the rest of it from `r`.
uint64_t key_in_block(uint64_t block, uint64_t num_blocks, uint64_t r) {
  const unsigned __int128 first =
      ((static_cast<unsigned __int128>(block) << 64) + num_blocks - 1) / num_blocks;
  return static_cast<uint64_t>(first) + r % ((~uint64_t{0} / num_blocks) - 1);
}

// test_and_set's keys whose fingerprint is alone in its block take a path of
// their own, repeats another, and the others the sort
// (kernels/filter_kernels.cu): batches of each kind and of all, one call
// after another, against the scalar reference.
void expect_batches_match_reference(const Layout& l, uint64_t blocks, uint64_t batch,
                                    const std::vector<std::vector<uint64_t>>& calls) {
  Reference ref(blocks, l);
  Filter filter(FilterParams{blocks, l, 5});
  auto backend = make_gpu_backend(filter, GpuOptions{0, batch});
  for (size_t c = 0; c < calls.size(); ++c) {
    std::vector<uint8_t> expected, answers(calls[c].size(), 0xee);
    const uint64_t fresh = ref.test_and_set(calls[c], &expected);
    ASSERT_EQ(backend->test_and_set(calls[c].data(), calls[c].size(), answers.data()), fresh)
        << "call " << c;
    ASSERT_EQ(answers, expected) << "call " << c;
  }
  backend->sync_to_host();
  ASSERT_EQ(filter_words(filter), ref.words);
}

TEST(GpuBackend, TestAndSetKeysAloneSharedAndMixed) {
  GDEDUP_REQUIRE_GPU();
  const uint64_t blocks = uint64_t{1} << 16, n = 8000;
  test::Rng rng(81);
  // Every key in a block of its own: blocks in a random order.
  std::vector<uint64_t> order(blocks);
  std::iota(order.begin(), order.end(), uint64_t{0});
  for (uint64_t i = blocks - 1; i > 0; --i) std::swap(order[i], order[rng.below(i + 1)]);
  std::vector<uint64_t> alone(n), one_block(n), mixed(n);
  for (uint64_t i = 0; i < n; ++i) alone[i] = key_in_block(order[i], blocks, rng.next());
  for (uint64_t i = 0; i < n; ++i) {
    // Every key in one block, a tenth of them repeats.
    one_block[i] = i % 10 == 9 ? one_block[rng.below(i)] : key_in_block(12345, blocks, rng.next());
    // Keys alone, keys of 50 shared blocks and repeats, interleaved.
    const uint64_t kind = rng.below(3);
    mixed[i] = kind == 0   ? key_in_block(order[n + i], blocks, rng.next())
               : kind == 1 ? key_in_block(order[2 * n + rng.below(50)], blocks, rng.next())
                           : (i == 0 ? rng.next() : mixed[rng.below(i)]);
  }
  for_each_schedule(2, [&] {
    for (const Layout& l : kLayouts) {
      for (uint64_t batch : {uint64_t{1}, uint64_t{4093}, n, 4 * n}) {
        SCOPED_TRACE(layout_name(l) + ", batch " + std::to_string(batch));
        // Batches of one key take a launch sequence each: fewer keys.
        const auto some = [&](const std::vector<uint64_t>& keys) {
          return batch == 1 ? std::vector<uint64_t>(keys.begin(), keys.begin() + 100) : keys;
        };
        // The repeat of a call finds every key present.
        expect_batches_match_reference(l, blocks, batch, {some(alone), some(alone)});
        expect_batches_match_reference(l, blocks, batch, {some(one_block), some(one_block)});
        expect_batches_match_reference(l, blocks, batch,
                                       {some(mixed), some(alone), some(one_block), some(mixed)});
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
    // A batch of several chunks (kMinChunkKeys = 2^16 keys each here): the
    // table starts empty for each, and later chunks see earlier ones' bits.
    std::vector<uint64_t> long_batch = random_keys(3 * (uint64_t{1} << 16) + 5, 82);
    for (uint64_t i = 0; i < long_batch.size(); i += 3) long_batch[i] = mixed[i % n];
    expect_batches_match_reference(kLayouts[2], blocks, long_batch.size(),
                                   {long_batch, long_batch});
  });
}

// Only the first occurrence of a fingerprint in a chunk goes through the
// block; its repeats answer present without it. Inputs aimed at telling
// fingerprints from blocks: two fingerprints of one block with the same
// masks (the second is present only through the first: answered from the
// block alone it would be new), two of one block with different masks
// (neither is a repeat of the other), and repeats separated by other keys
// of the same and of other blocks.
TEST(GpuBackend, TestAndSetRepeatsOfAFingerprint) {
  GDEDUP_REQUIRE_GPU();
  const uint64_t blocks = uint64_t{1} << 16;
  test::Rng rng(84);
  // Fingerprints differing only above their low 32 bits share the masks.
  const uint64_t twin = key_in_block(777, blocks, rng.below(uint64_t{1} << 40));
  const uint64_t twins[] = {twin + (uint64_t{1} << 32), twin};
  const uint64_t mates[] = {key_in_block(778, blocks, rng.next()),
                            key_in_block(778, blocks, rng.next())};
  ASSERT_EQ(block_index(twins[0], blocks), block_index(twins[1], blocks));
  ASSERT_EQ(block_index(mates[0], blocks), block_index(mates[1], blocks));
  std::vector<uint64_t> twin_calls, mate_calls, separated;
  for (int i = 0; i < 301; ++i) {
    twin_calls.push_back(twins[i % 2]);
    mate_calls.push_back(mates[(i / 3) % 2]);
  }
  // Each key repeats one of the last 100 or is a fresh one of the blocks
  // 777, 778 and 10000 or elsewhere: repeats with other keys in between.
  for (uint64_t i = 0; i < 5000; ++i) {
    const uint64_t kind = rng.below(4);
    separated.push_back(kind == 0 && i > 0 ? separated[i - 1 - rng.below(std::min<uint64_t>(i, 100))]
                        : kind == 1        ? key_in_block(777 + rng.below(2), blocks, rng.next())
                        : kind == 2        ? key_in_block(10000, blocks, rng.next())
                                           : rng.next());
  }
  for_each_schedule(2, [&] {
    for (const Layout& l : kLayouts) {
      for (uint64_t batch : {uint64_t{1}, uint64_t{3}, uint64_t{301}, uint64_t{4093}}) {
        SCOPED_TRACE(layout_name(l) + ", batch " + std::to_string(batch));
        // Batches of a few keys take a launch sequence each: fewer keys.
        const auto some = [&](const std::vector<uint64_t>& keys) {
          return batch <= 3 ? std::vector<uint64_t>(keys.begin(), keys.begin() + 40) : keys;
        };
        expect_batches_match_reference(l, blocks, batch, {some(twin_calls), some(twin_calls)});
        expect_batches_match_reference(l, blocks, batch,
                                       {some(mate_calls), some(twin_calls), some(mate_calls)});
        expect_batches_match_reference(l, blocks, batch, {some(separated), some(separated)});
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  });
}

#if defined(GDEDUP_HAVE_CUDA)
// The table of fingerprints at its fullest (half its entries, kernels/filter_kernels.h)
// with every block starting its probe at one entry: the longest probe
// sequences, wrapping around the table's end.
TEST(GpuBackend, TestAndSetTableHalfFullInOneCluster) {
  GDEDUP_REQUIRE_GPU();
  const uint64_t blocks = uint64_t{1} << 16, batch = 64;
  const uint32_t log2 = cuda::test_and_set_table_log2(batch);
  ASSERT_EQ(uint64_t{1} << log2, 2 * batch);
  for (uint64_t home : {uint64_t{0}, (uint64_t{1} << log2) - 1}) {
    std::vector<uint64_t> colliding;
    for (uint64_t b = 0; b < blocks && colliding.size() < batch; ++b) {
      if (kernels::table_home(b + 1, log2) == home) colliding.push_back(b);
    }
    ASSERT_EQ(colliding.size(), batch);
    test::Rng rng(90 + home);
    std::vector<uint64_t> distinct, repeated;
    for (uint64_t b : colliding) distinct.push_back(key_in_block(b, blocks, rng.next()));
    // Half the blocks twice (second key in the same block), in one chunk.
    for (uint64_t i = 0; i < batch; ++i) {
      repeated.push_back(key_in_block(colliding[i % (batch / 2)], blocks, rng.next()));
    }
    // Half the blocks once, then repeats of those keys and new keys of any
    // of the blocks: at most `batch` fingerprints, so the table ends half
    // full, and a repeat probes past entries of the same and other blocks.
    std::vector<uint64_t> repeats(distinct.begin(), distinct.begin() + batch / 2);
    for (uint64_t i = batch / 2; i < batch; ++i) {
      repeats.push_back(rng.below(2) == 0 ? repeats[rng.below(i)]
                                          : key_in_block(colliding[rng.below(batch)], blocks,
                                                         rng.next()));
    }
    for_each_schedule(2, [&] {
      for (const Layout& l : kLayouts) {
        SCOPED_TRACE(layout_name(l) + ", home " + std::to_string(home));
        expect_batches_match_reference(l, blocks, batch, {distinct, repeated, distinct});
        expect_batches_match_reference(l, blocks, batch, {repeats, repeated, repeats});
        if (::testing::Test::HasFatalFailure()) return;
      }
    });
  }
}

TEST(GpuBackend, DeviceAndPinnedBuffersGiveTheSameAnswers) {
  GDEDUP_REQUIRE_GPU();
  for_each_schedule(8, [] {
    const Layout l{512, 16};
    const uint64_t blocks = 8191, n = 40000;
    const std::vector<uint64_t> keys = pooled_keys(n, 20000, 61);
    Reference ref(blocks, l);
    std::vector<uint8_t> expected;
    const uint64_t fresh = ref.test_and_set(keys, &expected);

    // Device-resident keys and answers.
    {
      Filter filter(FilterParams{blocks, l, 5});
      auto backend = make_gpu_backend(filter, GpuOptions{0, 7000});
      uint64_t* d_keys = nullptr;
      uint8_t* d_answers = nullptr;
      ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&d_keys), n * 8), cudaSuccess);
      ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&d_answers), n), cudaSuccess);
      ASSERT_EQ(cudaMemcpy(d_keys, keys.data(), n * 8, cudaMemcpyHostToDevice), cudaSuccess);
      EXPECT_EQ(backend->test_and_set(d_keys, n, d_answers), fresh);
      std::vector<uint8_t> answers(n);
      ASSERT_EQ(cudaMemcpy(answers.data(), d_answers, n, cudaMemcpyDeviceToHost), cudaSuccess);
      EXPECT_EQ(answers, expected);
      backend->contains(d_keys, n, d_answers);
      ASSERT_EQ(cudaMemcpy(answers.data(), d_answers, n, cudaMemcpyDeviceToHost), cudaSuccess);
      EXPECT_EQ(answers, std::vector<uint8_t>(n, 1));
      cudaFree(d_keys);
      cudaFree(d_answers);
      backend->sync_to_host();
      EXPECT_EQ(filter_words(filter), ref.words);
    }
    // Pinned host keys and answers.
    {
      Filter filter(FilterParams{blocks, l, 5});
      auto backend = make_gpu_backend(filter, GpuOptions{0, 7000});
      uint64_t* h_keys = nullptr;
      uint8_t* h_answers = nullptr;
      ASSERT_EQ(cudaMallocHost(reinterpret_cast<void**>(&h_keys), n * 8), cudaSuccess);
      ASSERT_EQ(cudaMallocHost(reinterpret_cast<void**>(&h_answers), n), cudaSuccess);
      std::memcpy(h_keys, keys.data(), n * 8);
      EXPECT_EQ(backend->test_and_set(h_keys, n, h_answers), fresh);
      EXPECT_EQ(std::vector<uint8_t>(h_answers, h_answers + n), expected);
      cudaFreeHost(h_keys);
      cudaFreeHost(h_answers);
      backend->sync_to_host();
      EXPECT_EQ(filter_words(filter), ref.words);
    }
  });
}

// Backend::host_buffer's memory is pinned, and the backend's copies read the
// keys from it and write the answers into it in place: the stand-in counts
// one copy each way per batch the call was cut into, where a staging copy
// would leave the caller's buffers untouched by any copy; and no copy of the
// call touches pageable memory.
TEST(GpuBackend, HostBuffersArePinnedAndCopiedInPlace) {
  GDEDUP_REQUIRE_GPU();
  for_each_schedule(4, [] {
    const Layout l{256, 8};
    const uint64_t blocks = 4099, n = 40000, batch = 7000;
    const std::vector<uint64_t> keys = pooled_keys(n, 25000, 63);
    Reference ref(blocks, l);
    std::vector<uint8_t> expected;
    const uint64_t fresh = ref.test_and_set(keys, &expected);

    Filter filter(FilterParams{blocks, l, 5});
    auto backend = make_gpu_backend(filter, GpuOptions{0, batch});
    const HostBuffer key_buffer = backend->host_buffer(n * 8);
    const HostBuffer answer_buffer = backend->host_buffer(n);
    ASSERT_TRUE(key_buffer.pinned());
    ASSERT_TRUE(answer_buffer.pinned());
    ASSERT_GE(key_buffer.bytes(), n * 8);
    auto* h_keys = static_cast<uint64_t*>(key_buffer.data());
    auto* h_answers = static_cast<uint8_t*>(answer_buffer.data());
    std::memcpy(h_keys, keys.data(), n * 8);
#if defined(GDEDUP_CUDA_STANDIN)
    const uint64_t pageable_before = cuda_standin::pageable_async_copies();
#endif
    EXPECT_EQ(backend->test_and_set(h_keys, n, h_answers), fresh);
    EXPECT_EQ(std::vector<uint8_t>(h_answers, h_answers + n), expected);
    backend->contains(h_keys, n, h_answers);
    EXPECT_EQ(std::vector<uint8_t>(h_answers, h_answers + n), std::vector<uint8_t>(n, 1));
#if defined(GDEDUP_CUDA_STANDIN)
    const uint64_t batches = (n + batch - 1) / batch;
    EXPECT_EQ(cuda_standin::copies_touching(h_keys), 2 * batches);
    EXPECT_EQ(cuda_standin::copies_touching(h_answers), 2 * batches);
    // Nor does test_and_set read a count back into pageable memory.
    EXPECT_EQ(cuda_standin::pageable_async_copies(), pageable_before);
#endif
    backend->sync_to_host();
    EXPECT_EQ(filter_words(filter), ref.words);
  });
}

#if defined(GDEDUP_CUDA_STANDIN)
// Where the system refuses pinned memory, host_buffer gives plain memory and
// the backend copies pageable buffers without staging: same answers, same
// bits, no error.
TEST(GpuBackend, WithoutPinnedMemoryHostBuffersArePlainAndAnswersStayTheSame) {
  GDEDUP_REQUIRE_GPU();
  const Layout l{512, 16};
  const uint64_t blocks = 2053, n = 30000;
  const std::vector<uint64_t> keys = pooled_keys(n, 12000, 64);
  Reference ref(blocks, l);
  std::vector<uint8_t> expected;
  const uint64_t fresh = ref.test_and_set(keys, &expected);

  Filter filter(FilterParams{blocks, l, 5});
  // A batch size no other test uses: slots of its own, with no staging yet.
  auto backend = make_gpu_backend(filter, GpuOptions{0, 6007});
  const cuda_standin::Settings saved = cuda_standin::current();
  cuda_standin::Settings none_left = saved;
  none_left.pinned_bytes = cuda_standin::pinned_bytes_in_use();
  cuda_standin::set(none_left);
  const HostBuffer key_buffer = backend->host_buffer(n * 8);
  const HostBuffer answer_buffer = backend->host_buffer(n);
  EXPECT_FALSE(key_buffer.pinned());
  EXPECT_FALSE(answer_buffer.pinned());
  auto* h_keys = static_cast<uint64_t*>(key_buffer.data());
  auto* h_answers = static_cast<uint8_t*>(answer_buffer.data());
  std::memcpy(h_keys, keys.data(), n * 8);
  EXPECT_EQ(backend->test_and_set(h_keys, n, h_answers), fresh);
  EXPECT_EQ(std::vector<uint8_t>(h_answers, h_answers + n), expected);
  backend->contains(h_keys, n, h_answers);
  EXPECT_EQ(std::vector<uint8_t>(h_answers, h_answers + n), std::vector<uint8_t>(n, 1));
  cuda_standin::set(saved);
  backend->sync_to_host();
  EXPECT_EQ(filter_words(filter), ref.words);
}
#endif

// Device memory for the shard test, freed on scope exit.
struct DeviceBuffer {
  void* p = nullptr;
  explicit DeviceBuffer(uint64_t bytes) {
    EXPECT_EQ(cudaMalloc(&p, std::max<uint64_t>(bytes, 1)), cudaSuccess);
    EXPECT_EQ(cudaMemsetAsync(p, 0, std::max<uint64_t>(bytes, 1), nullptr), cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { cudaFree(p); }
  template <class T>
  T* as() const {
    return static_cast<T*>(p);
  }
};

// test_and_set's device buffers for `capacity` keys, as a slot holds them.
struct DeviceWorkspace {
  explicit DeviceWorkspace(uint64_t capacity)
      : blocks0(capacity * 8), blocks1(capacity * 8), positions0(capacity * 4),
        positions1(capacity * 4), before(capacity * cuda::kMaskBytesPerKey),
        scratch(cuda::test_and_set_scratch_bytes(capacity)),
        table(uint64_t{8} << cuda::test_and_set_table_log2(capacity)), flags(8),
        count(4),
        ws{{blocks0.as<uint64_t>(), blocks1.as<uint64_t>()},
           {positions0.as<uint32_t>(), positions1.as<uint32_t>()},
           before.p, scratch.p, cuda::test_and_set_scratch_bytes(capacity), capacity,
           table.as<uint64_t>(), cuda::test_and_set_table_log2(capacity),
           flags.as<uint32_t>(), count.as<uint32_t>(), nullptr} {
    EXPECT_EQ(cudaMallocHost(reinterpret_cast<void**>(&ws.host_words), 8), cudaSuccess);
  }
  DeviceWorkspace(const DeviceWorkspace&) = delete;
  ~DeviceWorkspace() { cudaFreeHost(ws.host_words); }
  DeviceBuffer blocks0, blocks1, positions0, positions1, before, scratch, table, flags, count;
  cuda::TestAndSetWorkspace ws;
};

// A batch larger than its workspace (a slot's holds one chunk, at most
// 2^21 keys, whatever the batch) goes chunk by chunk through it: three
// chunks and a bit of 2^16 keys, each seeing the bits of the one before.
TEST(GpuKernels, ABatchLargerThanItsWorkspaceGoesChunkByChunk) {
  GDEDUP_REQUIRE_GPU();
  const Layout l{256, 8};
  const uint64_t blocks = 4099, capacity = cuda::kMinChunkKeys, n = 3 * capacity + 5;
  const std::vector<uint64_t> keys = pooled_keys(n, 40000, 94);
  Reference ref(blocks, l);
  std::vector<uint8_t> expected;
  const uint64_t expected_fresh = ref.test_and_set(keys, &expected);

  DeviceBuffer words(blocks * l.block_words() * 4), d_keys(n * 8), d_answers(n), d_fresh(8);
  const DeviceWorkspace workspace(capacity);
  const FilterRef filter = whole_filter(words.as<uint32_t>(), blocks, l);
  cudaStream_t stream = nullptr;
  cudaEvent_t chain = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&chain), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d_keys.p, keys.data(), n * 8, cudaMemcpyHostToDevice), cudaSuccess);
  cuda::launch_test_and_set(filter, d_keys.as<uint64_t>(), n, d_answers.as<uint8_t>(),
                            d_fresh.as<unsigned long long>(), workspace.ws,
                            cuda::launch_shape(0), stream, chain);
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  std::vector<uint8_t> answers(n);
  std::vector<uint32_t> host(ref.words.size());
  unsigned long long fresh = 0;
  ASSERT_EQ(cudaMemcpy(answers.data(), d_answers.p, n, cudaMemcpyDeviceToHost), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(host.data(), words.p, host.size() * 4, cudaMemcpyDeviceToHost),
            cudaSuccess);
  ASSERT_EQ(cudaMemcpy(&fresh, d_fresh.p, 8, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(fresh, expected_fresh);
  EXPECT_EQ(answers, expected);
  EXPECT_EQ(host, ref.words);
  cudaEventDestroy(chain);
  cudaStreamDestroy(stream);
}

#if defined(GDEDUP_CUDA_STANDIN)
// Runs `body` on a thread of its own; one still running after `seconds` is
// this test's failure, and the process ends there, since a loop that never
// ends cannot be stopped.
template <class Body>
void ends_within(int seconds, Body body) {
  auto running = std::async(std::launch::async, body);
  if (running.wait_for(std::chrono::seconds(seconds)) == std::future_status::timeout) {
    ADD_FAILURE() << "still running after " << seconds << " s: a loop that never ends";
    std::fflush(stdout);
    std::_Exit(1);
  }
  running.get();
}

// What a host function on a second stream does to test_and_set's table
// (the stand-in's device memory is host memory): once step 1 has entered a
// key, it empties the table, as a device that lost the table's writes
// would.
struct EmptyTheTable {
  uint64_t* table;
  uint64_t entries;
  static void run(void* self) {
    const auto& e = *static_cast<EmptyTheTable*>(self);
    const auto entered = [&] {
      for (uint64_t s = 0; s < e.entries; ++s) {
        if (__atomic_load_n(e.table + s, __ATOMIC_RELAXED) != 0) return true;
      }
      return false;
    };
    while (!entered()) std::this_thread::yield();
    for (uint64_t s = 0; s < e.entries; ++s) __atomic_store_n(e.table + s, 0, __ATOMIC_RELAXED);
  }
};

// Every probe of test_and_set's table ends: a key whose entry is gone from
// its chunk's table (here emptied between step 1 and step 2, which wait for
// the chain event recorded after the emptying) fails the batch with an
// Error, where step 2's probe once went round the table for ever.
TEST(GpuKernels, AKeyMissingFromItsChunksTableFailsTheBatchInsteadOfSpinning) {
  GDEDUP_REQUIRE_GPU();
  const Layout l{512, 16};
  const uint64_t blocks = 4099, n = 1000;
  const std::vector<uint64_t> keys = random_keys(n, 98);
  DeviceBuffer words(blocks * l.block_words() * 4), d_keys(n * 8), d_answers(n), d_fresh(8);
  const DeviceWorkspace workspace(n);
  const FilterRef filter = whole_filter(words.as<uint32_t>(), blocks, l);
  cudaStream_t stream = nullptr, other = nullptr;
  cudaEvent_t chain = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  ASSERT_EQ(cudaStreamCreate(&other), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&chain), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d_keys.p, keys.data(), n * 8, cudaMemcpyHostToDevice), cudaSuccess);
  EmptyTheTable empty{workspace.ws.table, uint64_t{1} << cuda::test_and_set_table_log2(n)};
  ASSERT_EQ(cudaLaunchHostFunc(other, EmptyTheTable::run, &empty), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(chain, other), cudaSuccess);
  ends_within(60, [&] {
    try {
      cuda::launch_test_and_set(filter, d_keys.as<uint64_t>(), n, d_answers.as<uint8_t>(),
                                d_fresh.as<unsigned long long>(), workspace.ws,
                                cuda::launch_shape(0), stream, chain);
      ADD_FAILURE() << "a batch whose keys left its table was answered";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("test_and_set on the GPU lost a key of its batch of "
                                           "1000 keys"),
                std::string::npos)
          << e.what();
    }
  });
  EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  cudaEventDestroy(chain);
  cudaStreamDestroy(other);
  cudaStreamDestroy(stream);
}
#endif

// The kernels on shards (layout.h's FilterRef with a block offset): two
// references holding the halves of a filter, each in a device array of its
// own, give every key they own the whole reference filter's answer, and
// together hold its bits.
TEST(GpuKernels, ShardsOfAFilterAnswerAsTheWholeReference) {
  GDEDUP_REQUIRE_GPU();
  for_each_schedule(3, [] {
    const uint64_t blocks = 1001, split = 500;
    const std::vector<uint64_t> keys = pooled_keys(20000, 6000, 91);
    const std::vector<uint64_t> added = random_keys(5000, 92);
    const std::vector<uint64_t> probes = random_keys(20000, 93);
    const cuda::LaunchShape shape = cuda::launch_shape(0);
    cudaStream_t stream = nullptr;
    cudaEvent_t chain = nullptr;
    ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
    ASSERT_EQ(cudaEventCreate(&chain), cudaSuccess);
    ASSERT_EQ(cudaEventRecord(chain, stream), cudaSuccess);
    for (const Layout& l : kLayouts) {
      SCOPED_TRACE(layout_name(l));
      Reference ref(blocks, l);
      std::vector<uint8_t> expected;
      const uint64_t expected_fresh = ref.test_and_set(keys, &expected);
      std::vector<uint8_t> ignored;
      ref.test_and_set(added, &ignored);
      const std::vector<uint8_t> expected_present = ref.contains(probes);

      std::vector<uint8_t> answers(keys.size(), 0xee), present(probes.size(), 0xee);
      std::vector<uint32_t> joined;
      uint64_t fresh = 0, set_bits = 0;
      for (const auto& [first, held] : {std::pair{uint64_t{0}, split},
                                        std::pair{split, blocks - split}}) {
        DeviceBuffer words(held * l.block_words() * 4);
        const FilterRef part{words.as<uint32_t>(), blocks, l, first, held};
        // Each call gets the keys whose block this part holds, in input order.
        auto owned = [&](const std::vector<uint64_t>& all, std::vector<size_t>* from) {
          std::vector<uint64_t> mine;
          for (size_t i = 0; i < all.size(); ++i) {
            if (!part.holds(part.block_of(all[i]))) continue;
            mine.push_back(all[i]);
            if (from != nullptr) from->push_back(i);
          }
          return mine;
        };
        std::vector<size_t> from_keys, from_probes;
        const std::vector<uint64_t> mine = owned(keys, &from_keys);
        const std::vector<uint64_t> mine_added = owned(added, nullptr);
        const std::vector<uint64_t> mine_probes = owned(probes, &from_probes);
        const uint64_t n = std::max({mine.size(), mine_added.size(), mine_probes.size()});

        DeviceBuffer d_keys(n * 8), d_answers(n), d_fresh(8), d_bits(8);
        const DeviceWorkspace workspace(n);
        const cuda::TestAndSetWorkspace& ws = workspace.ws;

        std::vector<uint8_t> mine_answers(mine.size());
        ASSERT_EQ(cudaMemcpy(d_keys.p, mine.data(), mine.size() * 8, cudaMemcpyHostToDevice),
                  cudaSuccess);
        cuda::launch_test_and_set(part, d_keys.as<uint64_t>(), mine.size(),
                                  d_answers.as<uint8_t>(), d_fresh.as<unsigned long long>(), ws,
                                  shape, stream, chain);
        ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
        ASSERT_EQ(cudaMemcpy(mine_answers.data(), d_answers.p, mine.size(), cudaMemcpyDeviceToHost),
                  cudaSuccess);
        for (size_t j = 0; j < mine.size(); ++j) answers[from_keys[j]] = mine_answers[j];

        ASSERT_EQ(cudaMemcpy(d_keys.p, mine_added.data(), mine_added.size() * 8,
                             cudaMemcpyHostToDevice),
                  cudaSuccess);
        cuda::launch_add(part, d_keys.as<uint64_t>(), mine_added.size(), shape, stream);

        std::vector<uint8_t> mine_present(mine_probes.size());
        ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
        ASSERT_EQ(cudaMemcpy(d_keys.p, mine_probes.data(), mine_probes.size() * 8,
                             cudaMemcpyHostToDevice),
                  cudaSuccess);
        cuda::launch_contains(part, d_keys.as<uint64_t>(), mine_probes.size(),
                              d_answers.as<uint8_t>(), shape, stream);
        cuda::launch_count_set_bits(part, d_bits.as<unsigned long long>(), shape, stream);
        ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
        ASSERT_EQ(cudaMemcpy(mine_present.data(), d_answers.p, mine_probes.size(),
                             cudaMemcpyDeviceToHost),
                  cudaSuccess);
        for (size_t j = 0; j < mine_probes.size(); ++j) present[from_probes[j]] = mine_present[j];

        unsigned long long part_fresh = 0, part_bits = 0;
        ASSERT_EQ(cudaMemcpy(&part_fresh, d_fresh.p, 8, cudaMemcpyDeviceToHost), cudaSuccess);
        ASSERT_EQ(cudaMemcpy(&part_bits, d_bits.p, 8, cudaMemcpyDeviceToHost), cudaSuccess);
        fresh += part_fresh;
        set_bits += part_bits;
        std::vector<uint32_t> host(part.held_words());
        ASSERT_EQ(cudaMemcpy(host.data(), words.p, host.size() * 4, cudaMemcpyDeviceToHost),
                  cudaSuccess);
        joined.insert(joined.end(), host.begin(), host.end());
      }
      EXPECT_EQ(fresh, expected_fresh);
      ASSERT_EQ(answers, expected);
      ASSERT_EQ(present, expected_present);
      ASSERT_EQ(joined, ref.words);
      uint64_t expected_bits = 0;
      for (uint32_t w : ref.words) expected_bits += static_cast<uint64_t>(__builtin_popcount(w));
      EXPECT_EQ(set_bits, expected_bits);
    }
    cudaEventDestroy(chain);
    cudaStreamDestroy(stream);
  });
}
#endif

#if defined(GDEDUP_CPU_DEVICE)
// A kernel lasts as long as its longest thread. Duplicate-heavy batches (one
// key repeated, as every record that lacks the --key field is, or a few
// keys in one block) must not leave their keys to one thread in turn.
TEST(GpuBackend, NoThreadWorksThroughADuplicateHeavyBatchAlone) {
  const uint64_t n = uint64_t{1} << 16;
  for (const auto& keys : {std::vector<uint64_t>(n, 0x0123456789abcdefull), pooled_keys(n, 3, 71)}) {
    Reference ref(4099, kLayouts[2]);
    std::vector<uint8_t> expected;
    const uint64_t fresh = ref.test_and_set(keys, &expected);
    Filter filter(FilterParams{4099, kLayouts[2], 5});
    auto backend = make_gpu_backend(filter, GpuOptions{0, n});
    cuda::take_longest_thread_keys();
    std::vector<uint8_t> answers(n);
    ASSERT_EQ(backend->test_and_set(keys.data(), n, answers.data()), fresh);
    EXPECT_EQ(answers, expected);
    EXPECT_LE(cuda::take_longest_thread_keys(), 1u);
  }
}

// Repeats of a fingerprint never reach test_and_set's sort, and the first
// occurrences of at most kGroupKeys fingerprints of one block are answered
// by one thread without it: a batch of one key repeated, of a few keys in
// blocks of their own, or of 2 or 8 fingerprints of one block, each
// repeated, sorts none; one of 9 fingerprints of one block sorts those 9.
// No thread works through more than kGroupKeys keys.
TEST(GpuBackend, DuplicateHeavyBatchesSortOnlyBlocksOfManyFingerprints) {
  const uint64_t n = uint64_t{1} << 16, blocks = uint64_t{1} << 16;
  test::Rng rng(85);
  const auto of_block = [&](uint32_t fingerprints) {
    std::vector<uint64_t> distinct(fingerprints), keys(n);
    for (uint64_t& k : distinct) k = key_in_block(4242, blocks, rng.next());
    for (uint64_t& k : keys) k = distinct[rng.below(fingerprints)];
    return keys;
  };
  const uint64_t spread[] = {key_in_block(1, blocks, rng.next()),
                             key_in_block(30000, blocks, rng.next()),
                             key_in_block(60000, blocks, rng.next())};
  std::vector<uint64_t> spread_keys(n);
  for (uint64_t& k : spread_keys) k = spread[rng.below(3)];
  const std::vector<uint64_t> few = spread_keys, one_key(n, 0x0123456789abcdefull),
      pair = of_block(2), eight = of_block(cuda::kGroupKeys),
      nine = of_block(cuda::kGroupKeys + 1);
  for (const auto& [keys, sorted] :
       {std::pair{&one_key, 0u}, std::pair{&few, 0u}, std::pair{&pair, 0u},
        std::pair{&eight, 0u}, std::pair{&nine, cuda::kGroupKeys + 1}}) {
    SCOPED_TRACE("sorting " + std::to_string(sorted));
    Reference ref(blocks, kLayouts[2]);
    std::vector<uint8_t> expected;
    const uint64_t fresh = ref.test_and_set(*keys, &expected);
    Filter filter(FilterParams{blocks, kLayouts[2], 5});
    auto backend = make_gpu_backend(filter, GpuOptions{0, n});
    cuda::take_sorted_keys();
    cuda::take_longest_thread_keys();
    std::vector<uint8_t> answers(n);
    ASSERT_EQ(backend->test_and_set(keys->data(), n, answers.data()), fresh);
    EXPECT_EQ(answers, expected);
    EXPECT_EQ(cuda::take_sorted_keys(), sorted);
    EXPECT_LE(cuda::take_longest_thread_keys(), cuda::kGroupKeys);
  }
}
#endif

// Hot keys: one fingerprint in 15 keys of 16, or a few hundred fingerprints
// making up 15 keys of 16, the rest random. On a GPU the lanes of a warp
// with one fingerprint or block aggregate their atomics; on the stand-in's
// concurrent launches (even schedules) the threads of a launch race for the
// hot entry and the hot block's lanes. test_and_set, add and contains give
// the CPU backend's answers and bytes.
TEST(GpuBackend, HotKeysMatchTheCpuBackend) {
  GDEDUP_REQUIRE_GPU();
  const uint64_t n = uint64_t{1} << 16, blocks = 4099;
  test::Rng rng(96);
  const uint64_t hot = rng.next();
  std::vector<uint64_t> pool(300);
  for (uint64_t& k : pool) k = rng.next();
  std::vector<uint64_t> one_hot(n), few_hot(n);
  for (uint64_t i = 0; i < n; ++i) {
    one_hot[i] = i % 16 == 0 ? rng.next() : hot;
    few_hot[i] = i % 16 == 0 ? rng.next() : pool[rng.below(pool.size())];
  }
  const std::vector<uint64_t> probes = random_keys(20000, 97);
  for_each_schedule(2, [&] {
    for (const Layout& l : {kLayouts[0], kLayouts[3]}) {
      for (const auto* keys : {&one_hot, &few_hot}) {
        SCOPED_TRACE(layout_name(l) + (keys == &one_hot ? ", one hot key" : ", 300 hot keys"));
        Filter cpu_filter(FilterParams{blocks, l, 5}), gpu_filter(FilterParams{blocks, l, 5});
        auto cpu = make_cpu_backend(cpu_filter);
        auto gpu = make_gpu_backend(gpu_filter, GpuOptions{0, n});
        // The second call finds every key present.
        for (int call = 0; call < 2; ++call) {
          std::vector<uint8_t> want(n), got(n, 0xee);
          const uint64_t fresh = cpu->test_and_set(keys->data(), n, want.data());
          ASSERT_EQ(gpu->test_and_set(keys->data(), n, got.data()), fresh) << "call " << call;
          ASSERT_EQ(got, want) << "call " << call;
        }
        cpu->add(keys->data(), n);
        Filter added(FilterParams{blocks, l, 5});
        auto gpu_add = make_gpu_backend(added, GpuOptions{0, n});
        gpu_add->add(keys->data(), n);
        std::vector<uint8_t> want(probes.size()), got(probes.size(), 0xee);
        cpu->contains(probes.data(), probes.size(), want.data());
        gpu_add->contains(probes.data(), probes.size(), got.data());
        EXPECT_EQ(got, want);
        gpu->sync_to_host();
        gpu_add->sync_to_host();
        ASSERT_EQ(filter_words(gpu_filter), filter_words(cpu_filter));
        ASSERT_EQ(filter_words(added), filter_words(cpu_filter));
      }
    }
  });
}

#if defined(GDEDUP_CUDA_STANDIN)
// gpu.h's gpu_device_bytes is all a backend takes: a device with exactly
// that free beside the reserve gets the batch asked for, 2^22 keys (two
// chunks: the workspace holds one), and one byte less halves it. With
// test_and_set's workspace of 89 bytes a key for the whole batch, as
// before, it would have needed some 530 MiB more.
TEST(GpuBackend, DeviceMemoryIsWhatGpuDeviceBytesSays) {
  GDEDUP_REQUIRE_GPU();
  const Layout l{512, 16};
  const uint64_t blocks = 4099, batch = uint64_t{1} << 22;
  const std::vector<uint64_t> keys = pooled_keys(20000, 9000, 95);
  Reference ref(blocks, l);
  std::vector<uint8_t> expected;
  const uint64_t expected_fresh = ref.test_and_set(keys, &expected);
  const uint64_t filter_bytes = blocks * l.block_words() * 4;
  const uint64_t need = gpu_device_bytes(filter_bytes, batch);
  const uint64_t whole_batch_workspace =
      batch * cuda::kWorkspaceBytesPerKey + (uint64_t{8} << cuda::test_and_set_table_log2(batch));
  EXPECT_LT(need + (uint64_t{500} << 20), filter_bytes + 3 * (batch * 9 + whole_batch_workspace));
  const cuda_standin::Settings saved = cuda_standin::current();
  for (const uint64_t short_by : {uint64_t{0}, uint64_t{1}}) {
    SCOPED_TRACE("short by " + std::to_string(short_by));
    cuda_standin::Settings exact = saved;
    exact.device_bytes =
        cuda_standin::device_bytes_in_use() + cuda::kDeviceReserveBytes + need - short_by;
    cuda_standin::set(exact);
    const uint64_t in_use = cuda_standin::device_bytes_in_use();
    {
      Filter filter(FilterParams{blocks, l, 5});
      auto backend = make_gpu_backend(filter, GpuOptions{0, batch});
      const uint64_t taken = cuda_standin::device_bytes_in_use() - in_use;
      const uint64_t got = dynamic_cast<GpuBackend*>(backend.get())->batch_keys();
      EXPECT_EQ(got, short_by == 0 ? batch : batch / 2);
      EXPECT_LE(taken, gpu_device_bytes(filter_bytes, got));
      EXPECT_GE(taken, filter_bytes + 3 * got * 9);
      std::vector<uint8_t> answers(keys.size());
      EXPECT_EQ(backend->test_and_set(keys.data(), keys.size(), answers.data()), expected_fresh);
      EXPECT_EQ(answers, expected);
    }
    cuda_standin::set(saved);
  }
}
#endif

TEST(GpuBackend, FilterLargerThanDeviceMemoryGivesTheMessage) {
  GDEDUP_REQUIRE_GPU();
  const GpuDeviceInfo info = gpu_device_info();
  const uint64_t too_big = info.total_bytes + (uint64_t{1} << 30);
  try {
    check_gpu_fits(too_big);
    FAIL() << "check_gpu_fits accepted " << too_big << " bytes";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not enough device memory: the filter needs " +
                                         std::to_string(too_big) + " bytes, "),
              std::string::npos)
        << e.what();
    EXPECT_EQ(e.kind(), ErrorKind::device_memory) << e.what();
    EXPECT_GE(e.needed(), too_big + cuda::kDeviceReserveBytes) << e.what();
    EXPECT_LE(e.available(), info.total_bytes) << e.what();
  }
  // The same through the backend, when the host can map such a filter
  // (its pages are never touched before the device refuses it).
  std::unique_ptr<Filter> huge;
  try {
    huge = std::make_unique<Filter>(FilterParams{too_big / 32, {256, 8}, 1});
  } catch (const Error& e) {
    std::cout << "skipping the backend half: the host cannot map " << too_big
              << " bytes: " << e.what() << "\n";
    return;
  }
  try {
    make_gpu_backend(*huge);
    FAIL() << "make_gpu_backend accepted a filter larger than the device";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not enough device memory"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace gdedup
