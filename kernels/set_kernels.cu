// The device set's kernels (kernels/set_slots.h: the table), one source for
// two device systems as filter_kernels.cu: nvcc builds it for CUDA, the host
// compiler for the CPU device (set_kernels_cpu.cpp) against the CUDA
// stand-in.
//
// test_and_insert is two passes over the batch, no host wait between them
// and none inside; the host reads the counters (16 bytes) once a batch:
//   1. claim: each key probes from its home slot (set_slots.h: from its
//      salted value) and finds its own word or claims the first empty slot
//      (compare-and-swap); then lowers the slot's position word to its
//      position + 1 (RED min, no answer back), only when the word it read
//      is higher. Of the lanes of a warp that hold one key only the one of
//      the lowest position goes on (kernels/warp_ops.h), so a hot key makes
//      one probe and at most one atomic a warp, and later warps find the
//      word already low: reads only.
//   2. answer: each key probes again (its slot is there now); the position
//      word equal to its own position + 1 makes it the first occurrence:
//      new, and it sets the word to kPositionOld; any other value (old, or
//      a lower position) answers present.
// A key that finds no slot within the probe run sets the overflow flag in
// pass 1; pass 2 then does nothing, and the host grows the table (a rehash
// on the device that keeps each slot's position word) and runs the batch
// again: pass 1 is idempotent (the same words, the same minima). Every
// probe stops within the longest displacement; a key of pass 1 that pass 2
// does not find (a fault) sets the lost flag, which fails the batch.
//
// Bytes a key, random keys in a table well beyond the L2 (the regime of
// interest: 2^28 slots are 3 GiB), a random 32-byte sector counted whole:
//   pass 1: 16 key read + key word sector 32 (read; the compare-and-swap
//           of a new key writes it: +32) + position sector 32 read + 32 the
//           RED's write                                          144
//   pass 2: 16 key read + key word sector 32 + position sector 32 read +
//           32 written (a new key) + 1 answer                    113
//   257 bytes a new key, about 145 a repeat (no writes, both passes). An
//   H200's random sectors move at about half its 4.8 TB/s: 2.4 TB/s /
//   257 = ~9 G new keys/s, ~16 G repeats/s, device-resident (an H100's
//   3.35 TB/s: ~6.5 and ~11); the one-a-pass wait adds ~20 us. A table that
//   grew inside the call (a rehash of every slot, an allocation, a rerun
//   of the pass) took it to ~2.4 G keys/s on an H100 by the review's count:
//   kernels/set_sizing.h now sizes a set made for its keys so that it does
//   not. Key and position words in one 16-byte slot would make each probe
//   one sector instead of two, about 35% fewer bytes a key for a third
//   more bytes a slot: not done. Streamed (16 bytes of key in, 1 answer
//   back over PCIe 5 at ~55 GB/s each way, pass c + 1's keys in while pass
//   c runs: src/cuda/gpu_key_set.cpp): ~3.4 G keys/s from pinned memory;
//   from pageable memory the host's copy into the pinned staging, 16
//   bytes a key at some 10-20 GB/s, bounds it near 1 G keys/s. A hot key's
//   repeats hit one line in L2 after the first warp: 33 bytes of DRAM a
//   key. None of this is measured on a GPU: the kernels have run only on
//   the CPU stand-in (gpu_ops_bench's test_and_insert rows measure it on
//   the first GPU run).
#include <cuda/atomic>

#include <cstdint>
#include <string>

#include "block_ops.h"
#include "cuda_check.h"
#include "launch.h"
#include "set_kernels.h"
#include "set_slots.h"
#include "warp_ops.h"

namespace gdedup::cuda {
namespace {

using Word = ::cuda::atomic_ref<uint64_t, ::cuda::thread_scope_device>;
using Position = ::cuda::atomic_ref<uint32_t, ::cuda::thread_scope_device>;
constexpr auto kRelaxed = ::cuda::memory_order_relaxed;

// No slot: the probe run ended at an empty slot (a lookup) or past the
// longest displacement the table's words can hold.
constexpr uint64_t kNoSlot = ~uint64_t{0};

// The slot that holds the salted value `value`; with Claim, the first empty
// slot of its probe run claimed for it when none does. Linear probing from
// the home slot: keys are never removed, so a key's slot lies before the
// first empty one.
template <bool Claim>
GDEDUP_HD uint64_t find_slot(const SetTable& t, Key84 value) {
  const uint64_t mask = (uint64_t{1} << t.log2_slots) - 1;
  const uint64_t home = kernels::home_slot(value, t.log2_slots);
  const uint64_t most = kernels::max_displacement(t.log2_slots);
  for (uint64_t d = 0; d <= most; ++d) {
    const uint64_t s = (home + d) & mask;
    const uint64_t want = kernels::slot_word(value, d, t.log2_slots);
    Word slot(t.words[s]);
    uint64_t seen = slot.load(kRelaxed);
    if (seen == 0) {
      if (!Claim) return kNoSlot;
      kernels::between_steps();
      // A failed exchange loads the word that won the slot into `seen`.
      if (slot.compare_exchange_strong(seen, want, kRelaxed)) return s;
    }
    if (seen == want) return s;
  }
  return kNoSlot;
}

// A relaxed device-scope minimum whose old value nobody reads: RED on the
// device, a host atomic on the CPU.
GDEDUP_HD void lower_position(uint32_t* word, uint32_t value) {
#if defined(__CUDA_ARCH__)
  asm volatile("red.relaxed.gpu.global.min.u32 [%0], %1;" ::"l"(__cvta_generic_to_global(word)),
               "r"(value)
               : "memory");
#else
  Position(*word).fetch_min(value, kRelaxed);
#endif
}

GDEDUP_HD void set_overflow(SetCounters* counters) {
  ::cuda::atomic_ref<uint32_t, ::cuda::thread_scope_device>(counters->overflow)
      .store(1, kRelaxed);
}

GDEDUP_HD void set_lost(SetCounters* counters) {
  ::cuda::atomic_ref<uint32_t, ::cuda::thread_scope_device>(counters->lost).store(1, kRelaxed);
}

GDEDUP_HD bool overflowed(const SetCounters* counters) {
  return ::cuda::atomic_ref<uint32_t, ::cuda::thread_scope_device>(
             const_cast<uint32_t&>(counters->overflow))
             .load(kRelaxed) != 0;
}

// Whether the thread at position i leads the lanes of its warp holding `key`.
GDEDUP_HD bool lowest_holder(Key84 key, uint64_t i) {
  return kernels::lowest_of_peers(static_cast<uint64_t>(key >> 64), static_cast<uint64_t>(key),
                                  static_cast<uint32_t>(i));
}

// Pass 1 of test_and_insert.
struct ClaimKey {
  SetTable t;
  const Key84* keys;
  SetCounters* counters;
  GDEDUP_HD void operator()(uint64_t i) const {
    const Key84 key = keys[i];
    if (!lowest_holder(key, i)) return;
    const uint64_t s = find_slot<true>(t, kernels::salted(key, t.salt));
    if (s == kNoSlot) {
      set_overflow(counters);
      return;
    }
    const uint32_t mine = static_cast<uint32_t>(i) + 1;
    if (Position(t.positions[s]).load(kRelaxed) > mine) {
      kernels::between_steps();
      lower_position(&t.positions[s], mine);
    }
  }
};

// Pass 2 of test_and_insert; returns 1 for a new key.
struct AnswerKey {
  SetTable t;
  const Key84* keys;
  uint8_t* answers;
  SetCounters* counters;
  GDEDUP_HD uint64_t operator()(uint64_t i) const {
    if (overflowed(counters)) return 0;
    const uint64_t s = find_slot<false>(t, kernels::salted(keys[i], t.salt));
    if (s == kNoSlot) {  // pass 1 put every key in: a fault
      set_lost(counters);
      answers[i] = 1;
      return 0;
    }
    Position position(t.positions[s]);
    if (position.load(kRelaxed) != static_cast<uint32_t>(i) + 1) {
      answers[i] = 1;
      return 0;
    }
    position.store(kernels::kPositionOld, kRelaxed);
    answers[i] = 0;
    return 1;
  }
};

struct ContainsKey84 {
  SetTable t;
  const Key84* keys;
  uint8_t* answers;
  GDEDUP_HD void operator()(uint64_t i) const {
    answers[i] = find_slot<false>(t, kernels::salted(keys[i], t.salt)) != kNoSlot ? 1 : 0;
  }
};

struct RehashSlot {
  SetTable from;
  SetTable to;
  SetCounters* counters;
  GDEDUP_HD void operator()(uint64_t s) const {
    const uint64_t word = from.words[s];
    if (word == 0) return;
    const uint64_t at = find_slot<true>(to, kernels::slot_value(word, s, from.log2_slots));
    if (at == kNoSlot) {
      set_overflow(counters);
      return;
    }
    to.positions[at] = from.positions[s];
  }
};

struct RandomKey84 {
  Key84* keys;
  uint64_t seed;
  GDEDUP_HD void operator()(uint64_t i) const {
    const uint64_t high = kernels::splitmix64(seed, 2 * i);
    const uint64_t low = kernels::splitmix64(seed, 2 * i + 1);
    keys[i] = (static_cast<Key84>(high) << 20) | (low >> 44);
  }
};

void check_batch(uint64_t n) {
  if (n > kMaxBatchKeys) {
    throw Error("a set batch on the device holds at most " + std::to_string(kMaxBatchKeys) +
                " keys; got " + std::to_string(n) + ".");
  }
}

}  // namespace

void launch_set_clear(const SetTable& table, cudaStream_t stream) {
  const uint64_t slots = uint64_t{1} << table.log2_slots;
  GDEDUP_CUDA_CHECK(cudaMemsetAsync(table.words, 0, slots * sizeof(uint64_t), stream));
  GDEDUP_CUDA_CHECK(cudaMemsetAsync(table.positions, 0xff, slots * sizeof(uint32_t), stream));
}

void launch_set_test_and_insert(const SetTable& table, const Key84* keys, uint64_t n,
                                uint8_t* answers, SetCounters* counters, LaunchShape shape,
                                cudaStream_t stream) {
  if (n == 0) return;
  check_batch(n);
  for_each_index(ClaimKey{table, keys, counters}, n, shape, stream);
  sum_into(AnswerKey{table, keys, answers, counters}, n, &counters->fresh, shape, stream);
}

void launch_set_contains(const SetTable& table, const Key84* keys, uint64_t n,
                         uint8_t* answers, LaunchShape shape, cudaStream_t stream) {
  if (n == 0) return;
  check_batch(n);
  for_each_index(ContainsKey84{table, keys, answers}, n, shape, stream);
}

void launch_set_rehash(const SetTable& from, const SetTable& to, SetCounters* counters,
                       LaunchShape shape, cudaStream_t stream) {
  for_each_index(RehashSlot{from, to, counters}, uint64_t{1} << from.log2_slots, shape, stream);
}

void launch_random_keys84(Key84* keys, uint64_t n, uint64_t seed, LaunchShape shape,
                          cudaStream_t stream) {
  if (n == 0) return;
  for_each_index(RandomKey84{keys, seed}, n, shape, stream);
}

}  // namespace gdedup::cuda
