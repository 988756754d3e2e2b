// Per-target kernels. The loop keeps kInFlight keys between "prefetch its
// block" and "probe its block": a random probe into a large filter costs a
// full memory latency (about 140 ns on the 2-core build machine, even at
// 16 MiB), so one key at a time would be latency-bound at ~100 ns/key; with
// 16-32 misses in flight the loop approaches the memory system's throughput.
// Keys are still probed strictly in input order, which is what makes
// test_and_set sequential.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/kernels.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include "cpu/kernels.h"

#include <algorithm>

HWY_BEFORE_NAMESPACE();
namespace gdedup::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

constexpr size_t kInFlight = 16;  // power of two; see the benchmark sweep

// Salts laid out for vector loads: salt r * words + j at index r * words + j.
struct SaltTable {
  uint32_t v[kSaltCount];
  SaltTable() {
    for (uint32_t i = 0; i < kSaltCount; ++i) v[i] = salt(i);
  }
};
const SaltTable& salts() {
  static const SaltTable table;
  return table;
}

// Vector form of key_test_and_set / key_contains for a block of kWords words
// and kPerWord bits per word.
template <uint32_t kWords, uint32_t kPerWord>
struct SimdProbe {
  const uint32_t* salt = salts().v;

  template <bool kSet>
  HWY_INLINE bool operator()(uint32_t* block, uint64_t fingerprint) const {
    const hn::CappedTag<uint32_t, kWords> d;
    const size_t lanes = hn::Lanes(d);
    const auto lo = hn::Set(d, static_cast<uint32_t>(fingerprint));
    const auto one = hn::Set(d, 1u);
    bool all = true;
    for (size_t j = 0; j < kWords; j += lanes) {
      auto mask = hn::Zero(d);
      for (size_t r = 0; r < kPerWord; ++r) {
        const auto s = hn::LoadU(d, salt + r * kWords + j);
        mask = hn::Or(mask, hn::Shl(one, hn::ShiftRight<27>(hn::Mul(lo, s))));
      }
      const auto bits = hn::LoadU(d, block + j);
      all &= hn::AllTrue(d, hn::Eq(hn::And(bits, mask), mask));
      if (kSet) hn::StoreU(hn::Or(bits, mask), d, block + j);
    }
    return all;
  }
};

// The portable arithmetic of layout.h, with the geometry fixed at compile
// time so that the word loop unrolls.
template <uint32_t kWords, uint32_t kPerWord>
struct ScalarProbe {
  template <bool kSet>
  HWY_INLINE bool operator()(uint32_t* block, uint64_t fingerprint) const {
    // key_* take the whole array; hand them the block as a one-block array.
    constexpr BlockGeometry kOne{1, kWords, kPerWord};
    return kSet ? key_test_and_set(block, kOne, fingerprint)
                : key_contains(block, kOne, fingerprint);
  }
};

// The prefetch pipeline: Visit(i, block) is called for the keys this thread
// owns, in input order, each kInFlight keys after its block was prefetched.
//
// When the thread owns every block, one ring does it. Otherwise keys are
// taken in chunks: first the chunk's owned keys are gathered without branches
// (with two threads half the keys are skipped at random, and a mispredicted
// branch per key would cost more than the probe itself at small filter
// sizes), then they are visited.
template <int kWriteIntent, class Locate, class Visit>
HWY_INLINE void PipelinedAll(const uint64_t* fps, uint64_t count, Locate locate,
                             Visit visit) {
  uint32_t* block[kInFlight];
  const uint64_t ahead = std::min<uint64_t>(kInFlight, count);
  bool owned;
  for (uint64_t i = 0; i < ahead; ++i) {
    block[i] = locate(fps[i], &owned);
    __builtin_prefetch(block[i], kWriteIntent, 3);
  }
  for (uint64_t i = 0; i < count; ++i) {
    const size_t slot = i & (kInFlight - 1);
    uint32_t* b = block[slot];
    if (i + kInFlight < count) {
      block[slot] = locate(fps[i + kInFlight], &owned);
      __builtin_prefetch(block[slot], kWriteIntent, 3);
    }
    visit(i, b);
  }
}

template <int kWriteIntent, class Locate, class Visit>
HWY_INLINE void PipelinedOwned(const uint64_t* fps, uint64_t count, Locate locate,
                               Visit visit) {
  constexpr uint64_t kChunk = 1024;
  uint64_t index[kChunk];
  uint32_t* block[kChunk];
  for (uint64_t base = 0; base < count; base += kChunk) {
    const uint64_t end = std::min(count, base + kChunk);
    size_t selected = 0;
    for (uint64_t i = base; i < end; ++i) {
      bool owned;
      uint32_t* b = locate(fps[i], &owned);
      index[selected] = i;
      block[selected] = b;
      selected += owned;
    }
    const size_t ahead = std::min<size_t>(kInFlight, selected);
    for (size_t j = 0; j < ahead; ++j) __builtin_prefetch(block[j], kWriteIntent, 3);
    for (size_t j = 0; j < selected; ++j) {
      if (j + kInFlight < selected) __builtin_prefetch(block[j + kInFlight], kWriteIntent, 3);
      visit(index[j], block[j]);
    }
  }
}

template <class Probe>
uint64_t TestAndSetWith(const OwnedRange& r, const Probe& probe) {
  const BlockGeometry g = r.geometry;
  uint32_t* const words = r.words;
  const uint64_t begin = r.block_begin, end = r.block_end;
  const uint64_t span = end - begin;
  auto locate = [&](uint64_t fp, bool* owned) {
    const uint64_t b = block_index(fp, g.num_blocks);
    *owned = b - begin < span;  // one compare: wraps around below begin
    return words + b * g.block_words;
  };
  uint64_t fresh = 0;
  uint8_t* const out = r.was_present;
  const uint64_t* const fps = r.fingerprints;
  auto visit = [&](uint64_t i, uint32_t* b) {
    const bool was = probe.template operator()<true>(b, fps[i]);
    fresh += !was;
    if (out != nullptr) out[i] = was;
  };
  if (span == g.num_blocks) {
    PipelinedAll<1>(fps, r.count, locate, visit);
  } else {
    PipelinedOwned<1>(fps, r.count, locate, visit);
  }
  return fresh;
}

template <class Probe>
void ContainsWith(const KeySlice& s, const Probe& probe) {
  const BlockGeometry g = s.geometry;
  uint32_t* const words = const_cast<uint32_t*>(s.words);  // never written
  auto locate = [&](uint64_t fp, bool* owned) {
    *owned = true;
    return words + block_index(fp, g.num_blocks) * g.block_words;
  };
  const uint64_t* const fps = s.fingerprints;
  uint8_t* const out = s.present;
  PipelinedAll<0>(fps, s.count, locate, [&](uint64_t i, uint32_t* b) {
    out[i] = probe.template operator()<false>(b, fps[i]);
  });
}

// Calls fn with the probe for the geometry and arithmetic asked for.
template <template <uint32_t, uint32_t> class Probe, class Fn>
HWY_INLINE auto WithGeometry(const BlockGeometry& g, Fn fn) {
  if (g.block_words == 8) {
    return g.bits_per_word == 1 ? fn(Probe<8, 1>{}) : fn(Probe<8, 2>{});
  }
  return g.bits_per_word == 1 ? fn(Probe<16, 1>{}) : fn(Probe<16, 2>{});
}

// Calls fn with the probe for the geometry and arithmetic asked for.
template <class Fn>
HWY_INLINE auto WithProbe(const BlockGeometry& g, bool simd, Fn fn) {
  return simd ? WithGeometry<SimdProbe>(g, fn) : WithGeometry<ScalarProbe>(g, fn);
}

uint64_t TestAndSetOwned(const OwnedRange& r, bool simd) {
  return WithProbe(r.geometry, simd, [&](const auto& probe) { return TestAndSetWith(r, probe); });
}

void ContainsSlice(const KeySlice& s, bool simd) {
  WithProbe(s.geometry, simd, [&](const auto& probe) { ContainsWith(s, probe); });
}

int64_t Target() { return HWY_TARGET; }

}  // namespace gdedup::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <cstdlib>
#include <mutex>

#include "gdedup/error.h"

namespace gdedup::cpu {

HWY_EXPORT(TestAndSetOwned);
HWY_EXPORT(ContainsSlice);
HWY_EXPORT(Target);

uint64_t test_and_set_owned(const OwnedRange& range, Arith arith) {
  return HWY_DYNAMIC_DISPATCH(TestAndSetOwned)(range, arith == Arith::kSimd);
}

void contains_slice(const KeySlice& slice, Arith arith) {
  HWY_DYNAMIC_DISPATCH(ContainsSlice)(slice, arith == Arith::kSimd);
}

std::string simd_target_name() {
  return hwy::TargetName(HWY_DYNAMIC_DISPATCH(Target)());
}

void apply_simd_target_override() {
  static std::once_flag once;
  std::call_once(once, [] {
    const char* wanted = std::getenv("GDEDUP_SIMD_TARGET");
    if (wanted == nullptr || *wanted == '\0') return;
    std::string offered;
    for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
      if (std::string(hwy::TargetName(target)) == wanted) {
        hwy::SetSupportedTargetsForTest(target);
        return;
      }
      offered += std::string(offered.empty() ? "" : ", ") + hwy::TargetName(target);
    }
    throw UsageError(std::string("GDEDUP_SIMD_TARGET=") + wanted +
                     " is not a SIMD target this build offers on this processor; choose one of: " + offered);
  });
}

}  // namespace gdedup::cpu
#endif  // HWY_ONCE
