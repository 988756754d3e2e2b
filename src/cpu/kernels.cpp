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

// Keys whose block is prefetched ahead of its probe. A power of two: ring
// slots are picked by masking. 16 is not tuned by a measured sweep;
// cpu_ops_bench's memory floor prefetches as deep, so the two compare.
constexpr size_t kInFlight = 16;

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

// The portable arithmetic of layout.h: its block-level prepare and probe.
template <uint32_t kWords, uint32_t kPerWord>
struct ScalarProbe {
  template <bool kSet>
  HWY_INLINE bool operator()(uint32_t* block, uint64_t fingerprint) const {
    uint32_t m[kWords];
    block_masks<kWords, kPerWord>(fingerprint, m);
    return kSet ? block_add_masks<kWords>(block, m) : block_has_masks<kWords>(block, m);
  }
};

// The prefetch pipeline: Visit(i, block) is called for every key in order,
// kInFlight keys after its block was prefetched.
template <int kWriteIntent, class Visit>
HWY_INLINE void Pipelined(const KeyRun& run, Visit visit) {
  const FilterRef f = run.filter;
  const uint64_t* const fps = run.fingerprints;
  const uint64_t count = run.count;
  auto locate = [&](uint64_t fp) { return f.block(f.block_of(fp)); };
  uint32_t* block[kInFlight];
  const uint64_t ahead = std::min<uint64_t>(kInFlight, count);
  for (uint64_t i = 0; i < ahead; ++i) {
    block[i] = locate(fps[i]);
    __builtin_prefetch(block[i], kWriteIntent, 3);
  }
  for (uint64_t i = 0; i < count; ++i) {
    const size_t slot = i & (kInFlight - 1);
    uint32_t* b = block[slot];
    if (i + kInFlight < count) {
      block[slot] = locate(fps[i + kInFlight]);
      __builtin_prefetch(block[slot], kWriteIntent, 3);
    }
    visit(i, b);
  }
}

template <class Probe>
uint64_t TestAndSetWith(const KeyRun& run, const Probe& probe) {
  uint64_t fresh = 0;
  uint8_t* const out = run.answers;
  const uint64_t* const fps = run.fingerprints;
  Pipelined<1>(run, [&](uint64_t i, uint32_t* b) {
    const bool was = probe.template operator()<true>(b, fps[i]);
    fresh += !was;
    if (out != nullptr) out[i] = was;
  });
  return fresh;
}

template <class Probe>
void ContainsWith(const KeyRun& run, const Probe& probe) {
  uint8_t* const out = run.answers;
  const uint64_t* const fps = run.fingerprints;
  Pipelined<0>(run, [&](uint64_t i, uint32_t* b) {
    out[i] = probe.template operator()<false>(b, fps[i]);
  });
}

// Calls fn with the probe for the layout and arithmetic asked for.
// FilterParams::validate admits only the layouts the format defines.
template <template <uint32_t, uint32_t> class Probe, class Fn>
HWY_INLINE auto WithLayout(const Layout& layout, Fn fn) {
  using Result = decltype(fn(Probe<8, 1>{}));
  return dispatch_layout(
      layout, [&](auto words, auto bits) { return fn(Probe<decltype(words)::value, decltype(bits)::value>{}); },
      [&]() -> Result {
        HWY_ABORT("the CPU kernels have no layout with %u-bit blocks and k = %u",
                  layout.block_bits, layout.k);
      });
}

// Calls fn with the probe for the layout and arithmetic asked for.
template <class Fn>
HWY_INLINE auto WithProbe(const Layout& layout, bool simd, Fn fn) {
  return simd ? WithLayout<SimdProbe>(layout, fn) : WithLayout<ScalarProbe>(layout, fn);
}

uint64_t TestAndSetRun(const KeyRun& run, bool simd) {
  return WithProbe(run.filter.layout, simd, [&](const auto& probe) { return TestAndSetWith(run, probe); });
}

void ContainsRun(const KeyRun& run, bool simd) {
  WithProbe(run.filter.layout, simd, [&](const auto& probe) { ContainsWith(run, probe); });
}

int64_t Target() { return HWY_TARGET; }

}  // namespace gdedup::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <string>
#include <vector>

#include "gdedup/error.h"

namespace gdedup::cpu {

HWY_EXPORT(TestAndSetRun);
HWY_EXPORT(ContainsRun);
HWY_EXPORT(Target);

namespace {

// The entry of the HWY_EXPORT tables that HWY_DYNAMIC_DISPATCH would call if
// `target` were the only one supported: ChosenTarget::GetIndex
// (hwy/targets.h) applied to that target alone. A build of one target has
// one entry.
size_t dispatch_index(int64_t target) {
  constexpr size_t kEntries =
      sizeof HWY_DISPATCH_TABLE(Target) / sizeof HWY_DISPATCH_TABLE(Target)[0];
  if (kEntries == 1) return 0;
  const int64_t mask = (HWY_CHOSEN_TARGET_SHIFT(target) | HWY_CHOSEN_TARGET_MASK_SCALAR) &
                       HWY_CHOSEN_TARGET_MASK_TARGETS;
  return hwy::Num0BitsBelowLS1Bit_Nonzero64(static_cast<uint64_t>(mask));
}

size_t chosen_index(const std::string& wanted) {
  const std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
  std::string offered;
  for (int64_t target : targets) {  // best first
    if (wanted.empty() || wanted == hwy::TargetName(target)) {
      const size_t index = dispatch_index(target);
      // A Highway whose tables were laid out otherwise fails here, not by
      // running another target's code.
      if (HWY_DISPATCH_TABLE(Target)[index]() != target) {
        throw Error(std::string("the SIMD kernels for ") + hwy::TargetName(target) +
                    " are not where this build of Highway was expected to put them");
      }
      return index;
    }
    offered += std::string(offered.empty() ? "" : ", ") + hwy::TargetName(target);
  }
  throw UsageError("SIMD target " + wanted +
                   " is not one this build offers on this processor; choose one of: " + offered);
}

}  // namespace

Kernels::Kernels(Arith arith, const std::string& simd_target)
    : arith_(arith), index_(chosen_index(simd_target)) {}

uint64_t Kernels::test_and_set_run(const KeyRun& run) const {
  return HWY_DISPATCH_TABLE(TestAndSetRun)[index_](run, arith_ == Arith::kSimd);
}

void Kernels::contains_run(const KeyRun& run) const {
  HWY_DISPATCH_TABLE(ContainsRun)[index_](run, arith_ == Arith::kSimd);
}

std::string Kernels::target_name() const {
  return hwy::TargetName(HWY_DISPATCH_TABLE(Target)[index_]());
}

std::string best_simd_target_name() { return Kernels(Arith::kSimd, "").target_name(); }

}  // namespace gdedup::cpu
#endif  // HWY_ONCE
