// The CPU backend against the one-key-at-a-time reference of layout.h:
// scalar and SIMD, any thread count, every layout.
#include <hwy/targets.h>

#include <cstdint>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gdedup/backend.h"
#include "gdedup/error.h"
#include "gdedup/filter.h"
#include "gdedup/host_buffer.h"
#include "test_util.h"

namespace gdedup {
namespace {

using test::keys_with_duplicates;
using test::random_keys;

struct Reference {
  std::vector<uint8_t> answers;
  std::vector<uint32_t> words;
};

// Sequential semantics by definition: one key at a time, in input order.
Reference reference_test_and_set(const FilterParams& params, const std::vector<uint64_t>& keys) {
  Reference ref;
  ref.words.assign(params.words(), 0);
  const FilterRef f = whole_filter(ref.words.data(), params.num_blocks, params.layout);
  for (uint64_t fp : keys) ref.answers.push_back(key_test_and_set(f, fp));
  return ref;
}

std::vector<uint32_t> words_of(const Filter& f) {
  return std::vector<uint32_t>(f.words(), f.words() + f.params().words());
}

struct Outcome {
  std::vector<uint8_t> answers;
  std::vector<uint32_t> words;
  uint64_t fresh;
};

Outcome run_test_and_set(const FilterParams& params, const std::vector<uint64_t>& keys,
                     CpuOptions options) {
  Filter filter(params);
  auto backend = make_cpu_backend(filter, options);
  Outcome run;
  run.answers.assign(keys.size(), 7);
  run.fresh = backend->test_and_set(keys.data(), keys.size(), run.answers.data());
  run.words = words_of(filter);
  return run;
}

uint64_t count_zero(const std::vector<uint8_t>& v) {
  uint64_t n = 0;
  for (uint8_t x : v) n += x == 0;
  return n;
}

TEST(CpuBackend, TestAndSetEqualsReferenceForEveryKernelAndThreadCount) {
  for (const Layout& layout : kLayouts) {
    // Small enough that blocks collide often, large enough for 4 threads.
    const FilterParams params{4099, layout, 1};
    const auto keys = keys_with_duplicates(300000, 40000, layout.block_bits + layout.k);
    const Reference ref = reference_test_and_set(params, keys);
    for (CpuKernel kernel : {CpuKernel::kScalar, CpuKernel::kSimd}) {
      for (unsigned threads : {1u, 2u, 3u, 4u}) {
        SCOPED_TRACE("layout " + std::to_string(layout.block_bits) + "/" +
                     std::to_string(layout.k) + " threads " + std::to_string(threads) +
                     (kernel == CpuKernel::kSimd ? " simd" : " scalar"));
        const Outcome run = run_test_and_set(params, keys, {threads, kernel});
        EXPECT_EQ(run.answers, ref.answers);
        EXPECT_EQ(run.words, ref.words);
        EXPECT_EQ(run.fresh, count_zero(ref.answers));
      }
    }
  }
}

TEST(CpuBackend, ExactDuplicatesAreFoundAndFirstOccurrencesAreNew) {
  // Each key repeated in runs and scattered; a filter this large has no false
  // positives at this seed, so the answers are exactly "seen before".
  const auto keys = keys_with_duplicates(200000, 1000, 42);
  const FilterParams params{1 << 16, {512, 16}, 1};
  const Reference ref = reference_test_and_set(params, keys);
  std::vector<uint8_t> seen_before;
  std::vector<uint64_t> seen;
  for (uint64_t k : keys) {
    bool found = false;
    for (uint64_t s : seen) found |= s == k;
    if (!found) seen.push_back(k);
    seen_before.push_back(found);
  }
  EXPECT_EQ(ref.answers, seen_before);
  EXPECT_EQ(run_test_and_set(params, keys, {2, CpuKernel::kSimd}).answers, seen_before);
}

TEST(CpuBackend, AddThenContainsHasNoFalseNegatives) {
  test::Rng rng(7);
  for (int round = 0; round < 24; ++round) {
    const Layout layout = kLayouts[round % 4];
    const FilterParams params{1 + rng.below(50000), layout, rng.next()};
    const auto keys = random_keys(1 + rng.below(200000), rng.next());
    Filter filter(params);
    auto backend = make_cpu_backend(filter, {1 + static_cast<unsigned>(round % 3),
                                             round % 2 ? CpuKernel::kSimd : CpuKernel::kScalar});
    backend->add(keys.data(), keys.size());
    std::vector<uint8_t> present(keys.size(), 0);
    backend->contains(keys.data(), keys.size(), present.data());
    EXPECT_EQ(count_zero(present), 0u) << "round " << round;
    // add leaves the same bits as the reference's test_and_set.
    EXPECT_EQ(words_of(filter), reference_test_and_set(params, keys).words) << "round " << round;
    EXPECT_EQ(filter.counters().insertions, keys.size());
  }
}

TEST(CpuBackend, ContainsAgreesWithReferenceOnAbsentKeys) {
  for (const Layout& layout : kLayouts) {
    const FilterParams params{2000, layout, 3};
    const auto inserted = random_keys(30000, 11);
    const auto queried = random_keys(100000, 12);
    Filter filter(params);
    auto backend = make_cpu_backend(filter, {2, CpuKernel::kSimd});
    backend->add(inserted.data(), inserted.size());
    std::vector<uint8_t> present(queried.size());
    backend->contains(queried.data(), queried.size(), present.data());
    for (size_t i = 0; i < queried.size(); ++i) {
      ASSERT_EQ(present[i], key_contains(filter.ref(), queried[i])) << i;
    }
  }
}

TEST(CpuBackend, EverySimdTargetAgreesWithScalar) {
  const FilterParams params{777, {512, 32}, 5};
  const auto keys = keys_with_duplicates(50000, 20000, 9);
  const Reference ref = reference_test_and_set(params, keys);
  const std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
  ASSERT_FALSE(targets.empty());
  EXPECT_EQ(cpu_simd_target(), hwy::TargetName(targets.front()));
  for (int64_t target : targets) {
    const std::string name = hwy::TargetName(target);
    SCOPED_TRACE(name);
    std::cout << "[ target   ] " << name << "\n";
    CpuOptions options{1, CpuKernel::kSimd};
    options.simd_target = name;
    // The name comes from the running code's own HWY_TARGET.
    Filter filter(params);
    EXPECT_EQ(make_cpu_backend(filter, options)->name(), "cpu (" + name + ")");
    const Outcome run = run_test_and_set(params, keys, options);
    EXPECT_EQ(run.answers, ref.answers);
    EXPECT_EQ(run.words, ref.words);
  }
}

TEST(CpuBackend, KeysInTheLastBlocksOfAFilterBeyond2To32BitsAreFound) {
  // 2^24 + 3 blocks of 256 bits: 2^32 + 768 bits, so bit and word offsets of
  // the last blocks need more than 32 bits. Untouched pages are never mapped.
  const uint64_t blocks = (uint64_t{1} << 24) + 3;
  const FilterParams params{blocks, {256, 8}, 1};
  ASSERT_GT(params.words() * 32, uint64_t{1} << 32);
  Filter filter(params);
  std::vector<uint64_t> keys;
  for (uint64_t i = 0; i < 64; ++i) keys.push_back(~uint64_t{0} - i * 0x100000001ull);
  for (uint64_t fp : keys) ASSERT_GE(block_index(fp, blocks), blocks - 2);
  auto backend = make_cpu_backend(filter, {2, CpuKernel::kSimd});
  std::vector<uint8_t> was(keys.size());
  backend->test_and_set(keys.data(), keys.size(), was.data());
  std::vector<uint8_t> present(keys.size());
  backend->contains(keys.data(), keys.size(), present.data());
  EXPECT_EQ(count_zero(present), 0u);
  // The bits are where 64-bit arithmetic puts them, past word 2^27.
  const uint32_t* last = filter.words() + (blocks - 1) * 8;
  EXPECT_NE(last[0] | last[7], 0u);
  EXPECT_EQ(filter.words()[(blocks - 1) * 8 - (uint64_t{1} << 27)], 0u);
  EXPECT_EQ(filter.count_set_bits(), static_cast<uint64_t>(
      [&] { uint64_t n = 0; for (uint64_t w = (blocks - 2) * 8; w < blocks * 8; ++w)
              n += __builtin_popcount(filter.words()[w]); return n; }()));
}

TEST(CpuBackend, BlockIndexUsesAll64Bits) {
  const uint64_t blocks = (uint64_t{1} << 33) + 5;
  EXPECT_EQ(block_index(~uint64_t{0}, blocks), blocks - 1);
  EXPECT_EQ(block_index(0, blocks), 0u);
  EXPECT_EQ(block_index(uint64_t{1} << 63, blocks), blocks / 2);
  const FilterRef f = whole_filter(nullptr, blocks, {512, 32});
  EXPECT_EQ(f.block(f.block_of(~uint64_t{0})) - f.words, (blocks - 1) * 16);
}

TEST(CpuBackend, UnknownSimdTargetIsRefusedWithTheChoices) {
  Filter filter(FilterParams{8, {256, 8}, 1});
  CpuOptions options;
  options.simd_target = "fastest";
  try {
    make_cpu_backend(filter, options);
    FAIL() << "expected UsageError";
  } catch (const UsageError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("SIMD target fastest"), std::string::npos) << message;
    EXPECT_NE(message.find(cpu_simd_target()), std::string::npos) << message;
  }
}

// The CPU backend's host memory is plain, aligned to a cache line, and
// moves with its owner; a size no memory holds is refused with the size.
TEST(CpuBackend, HostBuffersArePlainAlignedMemory) {
  Filter filter(FilterParams{64, {256, 8}, 1});
  auto backend = make_cpu_backend(filter);
  for (uint64_t bytes : {uint64_t{0}, uint64_t{1}, uint64_t{100}, uint64_t{1} << 20}) {
    HostBuffer buffer = backend->host_buffer(bytes);
    ASSERT_NE(buffer.data(), nullptr);
    EXPECT_EQ(buffer.bytes(), bytes);
    EXPECT_FALSE(buffer.pinned());
    EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer.data()) % 64, 0u);
    std::memset(buffer.data(), 0x5a, bytes);
    void* const data = buffer.data();
    HostBuffer moved = std::move(buffer);
    EXPECT_EQ(moved.data(), data);
    EXPECT_EQ(buffer.data(), nullptr);
  }
  try {
    backend->host_buffer(UINT64_MAX - 10);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::out_of_memory);
    EXPECT_EQ(e.needed(), UINT64_MAX - 10);
    EXPECT_NE(std::string(e.what()).find(std::to_string(UINT64_MAX - 10)), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace gdedup
