// The filter kernels, one source for two device systems: nvcc builds it for
// CUDA (gdedup_cuda), and the host compiler builds it for a CPU device
// (kernels/filter_kernels_cpu.cpp, test builds with the CUDA stand-in) where
// Thrust's CPP system runs the same per-key functors that the CUDA kernels
// run, each launch queued on its stream with cudaLaunchHostFunc. Sorting is
// CUB's radix sort on CUDA and Thrust's stable sort on the CPU; both are
// stable, so both devices see the same order.
//
// Memory-bound: per key one 8-byte fingerprint read and one random 32- or
// 64-byte block (one or two sectors), so throughput is set by random sector
// traffic, not arithmetic. The byte counts below are DRAM bytes a key for
// 512-bit blocks (256-bit: 32 less a block read or write), a random sector
// counted whole; rates assume an H200's random 32-byte sectors move at
// about half its 4.8 TB/s (2.4 TB/s) and PCIe 5 x16 at about 55 GB/s each
// way. None of these rates is measured on a GPU (bench/RESULTS.md's
// estimate table; gpu_ops_bench measures them).
//
// add:      one thread per key; reads the block and ORs in only the 64-bit
//           lanes that still miss bits (RED, no answer back), so a saturated
//           filter is only read. The lanes of a warp with keys of one block
//           OR their missing bits first (__match_any_sync, __reduce_or_sync)
//           and one of them makes the atomics: a hot key costs one RED a
//           lane a warp, not one a thread (a wave of ~270k threads, all
//           seeing the hot block's bits missing, made up to 8 each), and
//           once its bits are in, reads only.
//           Random: 8 + 64 read + 64 written = 136: ~18 G keys/s.
// contains: one thread per key; 16-byte loads through the read-only cache.
//           Random: 8 + 64 + 1 = 73: ~33 G keys/s.
// test_and_set: kernels/block_ops.h says why this is sequential. A batch is
// worked through in chunks of at most min(kChunkKeys = 2^21, max(blocks / 32,
// 2^16)) keys, so that about 1 key in 32 shares its block with another key
// of the chunk. Per chunk, without the host:
//   0. clear the table of fingerprints: 2^22 entries (32 MiB) at most, two
//      a key                                        16 written
//   1. enter each key's fingerprint in the table under its block (an atomic
//      exchange for a new one; a repeat reads the entry and the fingerprint
//      at its position, both hot in cache; of the lanes of a warp with one
//      fingerprint only the one of the lowest position goes on, so a hot
//      key's exchanges and position-lowering loop come from one lane a warp)
//                                                   8, and the entry's sector
//                                                   read and written: 0 where
//                                                   the table stays in the
//                                                   50 MB L2, 64 where not
//   2. a repeat of a fingerprint answers present; the first occurrences of
//      the fingerprints of a block, at most kGroupKeys = 8 of them (one
//      alone in its block the common case), are answered by the thread of
//      the lowest position, which gathers them from the block's probe run in
//      the table, answers them in position order and writes the block back
//      once, no atomics; a block with more fingerprints, and every group
//      once any key of the batch was, is left to the sort (answer
//      kDeferred, and the batch's deferred flag set)
//                                                   8 + the entry's sector
//                                                   (0-32) + 1 answer, and a
//                                                   first occurrence + 64 +
//                                                   64 (when it set a bit)
// Every probe of the table is bounded: one that finds no entry where its
// key's must be, or none empty in the whole table, raises a flag instead of
// spinning. After the last chunk the host reads the flags (8 bytes, pinned):
// the one wait of a batch, which fails the batch on a lost entry. Only when
// a key was deferred (a block with more than 8
// fingerprints in a chunk: below 10^-19 a block for random keys, 1/32 of a
// key a block; many with a filter of few blocks), window by window of the
// chunks: stable compaction of the deferred keys' positions (1 a key of the
// window) and a wait for their count (the sort takes its length from the
// host); then gather their blocks, stable radix sort of (block, position),
// segmented exclusive OR-scan of their masks (CUB's ScanByKey), answers,
// and the last key of each block's segment writes the block once: ~700 a
// deferred key, and some 20-40 us of waits a window.
//   Random keys at 4 GiB (chunks of 2^21 keys, the table beside 128 MiB of
//   block traffic a chunk, so partly out of L2): 8 + 8 fingerprints, 16
//   table clear, 0-96 table sectors, 64 + 64 block, 1 answer: 161-257 bytes
//   a key, 9-15 G keys/s; streamed, 9 bytes a key over PCIe (8 in, 1 back,
//   each way its own link) bound it at ~6.5 G keys/s once batch c + 1's
//   copy overlaps batch c's kernels (src/cuda/gpu_backend.cpp), which no
//   longer wait on the host chunk by chunk.
//   Duplicate-heavy keys (one hot key in 15 of 16, or 9 in 10 repeats): a
//   repeat moves about 17 bytes (fingerprint twice, answer) and reads the
//   hot entry (one L2 request a warp), so such a chunk costs less than a
//   random one: at least the random rate. Only distinct fingerprints reach
//   a block or the sort; no thread handles more than kGroupKeys keys.
//   Steps 0 and 1 of the first chunk run before the wait for the previous
//   batch (`chain`); the rest touches the filter.
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#if defined(__CUDACC__)
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#else
// The CPU device: Thrust's CPP system for the library algorithms (sort,
// scan, compaction), sequential; the kernels' own launches run one thread
// at a time, or several at once in the stand-in's concurrent mode
// (run_launch). The stand-in's streams give the concurrency between
// launches. (Thrust's OMP system compiles too, but its threads are
// invisible to the sanitizers.)
#include <thrust/copy.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/scan.h>
#include <thrust/sort.h>

#include <atomic>
#include <thread>
#include <vector>

#include "cuda_standin.h"
#endif

#include <cuda/atomic>

#include <algorithm>
#include <memory>
#include <string>
#include <type_traits>

#include "block_ops.h"
#include "cuda_check.h"
#include "filter_kernels.h"
#include "launch.h"
#include "warp_ops.h"

namespace gdedup::cuda {
namespace {

// ---------------------------------------------------------------------------
// Per-key work, shared by both device systems: thread i of a launch calls
// operator()(i).

// A relaxed device-scope OR whose old value nobody reads: RED on the device
// (a reduction the memory system completes without answering the thread;
// libcu++'s fetch_or compiled to ATOM with the result discarded), a host
// atomic on the CPU.
GDEDUP_HD void atomic_or(uint64_t* lane, uint64_t bits) {
#if defined(__CUDA_ARCH__)
  asm volatile("red.relaxed.gpu.global.or.b64 [%0], %1;" ::"l"(__cvta_generic_to_global(lane)),
               "l"(bits)
               : "memory");
#else
  ::cuda::atomic_ref<uint64_t, ::cuda::thread_scope_device>(*lane).fetch_or(
      bits, ::cuda::memory_order_relaxed);
#endif
}

// The block of a key that add may OR into meanwhile. On the device plain
// 16-byte loads (a stale word costs an atomic that was not needed); on the
// CPU relaxed atomic loads, which the sanitizers accept beside the ORs.
template <uint32_t BW>
GDEDUP_HD void load_block_shared(uint32_t* p, uint32_t (&w)[BW]) {
#if defined(__CUDA_ARCH__)
  kernels::load_block<BW>(p, w);
#else
  GDEDUP_UNROLL
  for (uint32_t q = 0; q < BW / 2; ++q) {
    const uint64_t lane = ::cuda::atomic_ref<uint64_t, ::cuda::thread_scope_device>(
                              reinterpret_cast<uint64_t*>(p)[q])
                              .load(::cuda::memory_order_relaxed);
    w[2 * q] = static_cast<uint32_t>(lane);
    w[2 * q + 1] = static_cast<uint32_t>(lane >> 32);
  }
#endif
}

template <uint32_t BW, uint32_t BPW>
struct AddKey {
  FilterRef f;
  const uint64_t* fingerprints;
  GDEDUP_HD void operator()(uint64_t i) const {
    const uint64_t fp = fingerprints[i];
    uint32_t* block = f.block(f.block_of(fp));
    uint32_t w[BW];
    load_block_shared<BW>(block, w);
    uint64_t missing[BW / 2];
    kernels::block_missing<BW, BPW>(w, fp, missing);
    // The lanes of a warp with keys of this block OR their missing bits and
    // one of them ORs them in: a hot key makes one atomic a lane of its
    // block a warp, not one a thread.
    if (!kernels::or_over_peers<BW / 2>(f.block_of(fp), static_cast<uint32_t>(i), missing)) {
      return;
    }
    GDEDUP_UNROLL
    for (uint32_t q = 0; q < BW / 2; ++q) {
      if (missing[q] != 0) {
        kernels::between_steps();
        atomic_or(reinterpret_cast<uint64_t*>(block) + q, missing[q]);
      }
    }
  }
};

template <uint32_t BW, uint32_t BPW>
struct ContainsKey {
  FilterRef f;
  const uint64_t* fingerprints;
  uint8_t* present;
  GDEDUP_HD void operator()(uint64_t i) const {
    const uint64_t fp = kernels::load_readonly(fingerprints + i);
    uint32_t w[BW];
    kernels::load_block_readonly<BW>(f.block(f.block_of(fp)), w);
    present[i] = kernels::block_contains<BW, BPW>(w, fp) ? 1 : 0;
  }
};

// The batch's flags (TestAndSetWorkspace::flags), which the host reads
// once a batch: whether a key was left to the sort, and whether a probe of
// the table found no entry where its key's must be, or no empty one in the
// whole table (never for a table at most half full whose entries only its
// chunk's keys make: a fault, which fails the batch instead of spinning).
constexpr uint32_t kDeferredFlag = 0;
constexpr uint32_t kLostFlag = 1;

GDEDUP_HD void set_flag(uint32_t* flags, uint32_t which) {
  ::cuda::atomic_ref<uint32_t, ::cuda::thread_scope_device>(flags[which]).store(
      1, ::cuda::memory_order_relaxed);
}

// Step 1 of a chunk: enters key i's fingerprint in the table (block_ops.h),
// keeping its lowest position, and marks the entries of two fingerprints of
// one block. Touches no filter word. Of the lanes of a warp that hold one
// fingerprint only the one of the lowest position goes on (warp_ops.h): the
// others' walk would be the same with higher positions. So a hot key makes
// one probe a warp, and its atomics (the exchange that claims the entry,
// the loop that lowers its position) come from one lane a warp. Repeats in
// later warps mostly only read the entry.
struct MarkFingerprint {
  FilterRef f;
  const uint64_t* fingerprints;  // the chunk's
  uint64_t* table;
  uint32_t log2_entries;
  uint32_t* flags;
  GDEDUP_HD void operator()(uint64_t i) const {
    const uint64_t fp = kernels::load_readonly(fingerprints + i);
    if (!kernels::lowest_of_peers(fp, static_cast<uint32_t>(i))) return;
    const uint64_t block = f.block_of(fp);
    const uint64_t entries = uint64_t{1} << log2_entries;
    uint64_t other = 0;  // kOtherFingerprint once another fingerprint's entry of the block was passed
    uint64_t s = kernels::table_home(block + 1, log2_entries);
    for (uint64_t probes = 0; probes < entries; ++probes, s = (s + 1) & (entries - 1)) {
      ::cuda::atomic_ref<uint64_t, ::cuda::thread_scope_device> slot(table[s]);
      uint64_t seen = slot.load(::cuda::memory_order_relaxed);
      if (seen == 0) {
        kernels::between_steps();
        // A failed exchange loads the entry that won the slot into `seen`.
        if (slot.compare_exchange_strong(seen, other | kernels::table_entry(block, i),
                                         ::cuda::memory_order_relaxed)) {
          return;
        }
      }
      if (kernels::entry_tag(seen) != block + 1) continue;
      // Every position an entry ever holds is one of its fingerprint's.
      if (kernels::load_readonly(fingerprints + kernels::entry_position(seen)) != fp) {
        if ((seen & kernels::kOtherFingerprint) == 0) {
          kernels::between_steps();
          atomic_or(&table[s], kernels::kOtherFingerprint);
        }
        other = kernels::kOtherFingerprint;
        continue;
      }
      for (;;) {
        kernels::between_steps();
        const uint64_t first = kernels::entry_position(seen) < i ? kernels::entry_position(seen) : i;
        const uint64_t want = (seen & ~(kernels::kEntryPositions - 1)) | other | first;
        if (want == seen ||
            slot.compare_exchange_weak(seen, want, ::cuda::memory_order_relaxed)) {
          return;
        }
      }
    }
    set_flag(flags, kLostFlag);
  }
};

// Answers of keys left to the sort (kDeferred) until it answers them.
constexpr uint8_t kDeferred = 2;

// Whether any key of the batch was left to the sort.
GDEDUP_HD bool any_deferred(uint32_t* flags) {
  return ::cuda::atomic_ref<uint32_t, ::cuda::thread_scope_device>(flags[kDeferredFlag])
             .load(::cuda::memory_order_relaxed) != 0;
}

GDEDUP_HD void defer(uint32_t* flags, uint8_t* answer) {
  *answer = kDeferred;
  if (!any_deferred(flags)) set_flag(flags, kDeferredFlag);
}

// Step 2 of a chunk: a repeat of a fingerprint is present (the first one
// set its bits). The first occurrences of the fingerprints of one block,
// at most kGroupKeys of them, are answered by one thread, the one of the
// lowest position: it gathers them from the block's probe run in the table,
// answers them in position order against the block and writes it back once
// (no other key of the chunk changes it); a fingerprint alone in its block
// is a group of one. A block with more fingerprints is left to the sort
// (kDeferred), and so is every group once any key of the batch was: the
// sort then answers the deferred keys in position order after the batch's
// last chunk, so no block may be answered here after a deferred key of it.
// Returns the number of new keys the thread answered.
template <uint32_t BW, uint32_t BPW>
struct AnswerFirst {
  FilterRef f;
  const uint64_t* fingerprints;  // the chunk's
  const uint64_t* table;
  uint32_t log2_entries;
  uint32_t* flags;  // the batch's
  uint8_t* was_present;  // the chunk's
  GDEDUP_HD uint64_t operator()(uint64_t i) const {
    const uint64_t fp = kernels::load_readonly(fingerprints + i);
    const uint64_t block = f.block_of(fp);
    const uint64_t mask = (uint64_t{1} << log2_entries) - 1;
    const uint64_t home = kernels::table_home(block + 1, log2_entries);
    // The fingerprint's entry lies in its block's probe run, which ends at
    // an empty entry (step 1 is done, and entries are never removed).
    uint64_t entry = 0;
    for (uint64_t d = 0;; ++d) {
      entry = d <= mask ? table[(home + d) & mask] : 0;
      if (entry == 0) {
        set_flag(flags, kLostFlag);
        was_present[i] = 1;
        return 0;
      }
      if (kernels::entry_tag(entry) != block + 1) continue;
      const uint64_t first = kernels::entry_position(entry);
      if (first == i || kernels::load_readonly(fingerprints + first) == fp) break;
    }
    if (kernels::entry_position(entry) != i) {
      was_present[i] = 1;
      return 0;
    }
    if ((entry & kernels::kOtherFingerprint) == 0) {
      // Alone in its block: a group of one, in registers.
      return answer(block, 1, [&](uint32_t) { return static_cast<uint32_t>(i); });
    }
    // The block's entries all lie in its probe run, which ends at an empty
    // entry (the table is at most half full, and entries are never removed).
    uint32_t group[kGroupKeys];
    uint32_t g = 0;
    for (uint64_t d = 0;; ++d) {
      if (d > mask) {
        set_flag(flags, kLostFlag);
        return 0;
      }
      const uint64_t s = (home + d) & mask;
      if (table[s] == 0) break;
      if (kernels::entry_tag(table[s]) != block + 1) continue;
      if (g == kGroupKeys) {
        defer(flags, was_present + i);
        return 0;
      }
      group[g++] = static_cast<uint32_t>(kernels::entry_position(table[s]));
    }
    // The lowest position answers; insertion sort puts the rest in order.
    for (uint32_t a = 0; a < g; ++a) {
      if (group[a] < i) return 0;
    }
    for (uint32_t a = 1; a < g; ++a) {
      const uint32_t p = group[a];
      uint32_t b = a;
      for (; b > 0 && group[b - 1] > p; --b) group[b] = group[b - 1];
      group[b] = p;
    }
    return answer(block, g, [&](uint32_t a) { return group[a]; });
  }

  // Answers the first occurrences at position(0) .. position(g - 1), in
  // that order, against `block` and writes it back once; or, once any key
  // of the batch was deferred, defers them all. Returns the new keys.
  template <class Position>
  GDEDUP_HD uint64_t answer(uint64_t block, uint32_t g, const Position& position) const {
    if (any_deferred(flags)) {
      for (uint32_t a = 0; a < g; ++a) defer(flags, was_present + position(a));
      return 0;
    }
    uint32_t* words = f.block(block);
    uint32_t w[BW];
    kernels::load_block<BW>(words, w);
    uint64_t fresh = 0;
    for (uint32_t a = 0; a < g; ++a) {
      const uint32_t p = position(a);
      const bool present =
          kernels::block_test_and_set<BW, BPW>(w, kernels::load_readonly(fingerprints + p));
      was_present[p] = present ? 1 : 0;
      fresh += present ? 0 : 1;
    }
    if (fresh != 0) kernels::store_block<BW>(words, w);
    return fresh;
  }
};

// Step 4 of a chunk: the block of each compacted key, the sort's keys.
struct CompactedBlock {
  FilterRef f;
  const uint64_t* fingerprints;  // the batch's
  const uint32_t* positions;
  uint64_t* blocks;
  GDEDUP_HD void operator()(uint64_t t) const {
    blocks[t] = f.block_of(fingerprints[positions[t]]);
  }
};

// The masks of sorted key t: the scan's input.
template <uint32_t BW, uint32_t BPW>
struct SortedMask {
  const uint64_t* fingerprints;
  const uint32_t* positions;
  GDEDUP_HD kernels::BlockMask<BW> operator()(uint64_t t) const {
    return kernels::mask_of<BW, BPW>(fingerprints[positions[t]]);
  }
};

// What test_and_set's steps 4 and 5 read of sorted key t.
template <uint32_t BW>
struct SortedBatch {
  FilterRef f;
  const uint64_t* fingerprints;
  const uint64_t* blocks;
  const uint32_t* positions;
  const kernels::BlockMask<BW>* before;
  uint64_t n;
};

// Step 4: answers sorted key t; returns 1 when it was new. Nothing writes
// the filter meanwhile.
template <uint32_t BW, uint32_t BPW>
struct AnswerSorted {
  SortedBatch<BW> b;
  uint8_t* was_present;
  GDEDUP_HD uint64_t operator()(uint64_t t) const {
    const uint32_t p = b.positions[t];
    uint32_t w[BW];
    kernels::load_block_readonly<BW>(b.f.block(b.blocks[t]), w);
    const bool present = kernels::present_after<BW, BPW>(w, b.before[t], b.fingerprints[p]);
    was_present[p] = present ? 1 : 0;
    return present ? 0 : 1;
  }
};

// Step 5: the last key of each block's segment writes the block.
template <uint32_t BW, uint32_t BPW>
struct StoreSegment {
  SortedBatch<BW> b;
  GDEDUP_HD void operator()(uint64_t t) const {
    if (t + 1 < b.n && b.blocks[t + 1] == b.blocks[t]) return;
    uint32_t* block = b.f.block(b.blocks[t]);
    uint32_t w[BW];
    kernels::load_block<BW>(block, w);
    kernels::add_segment<BW, BPW>(w, b.before[t], b.fingerprints[b.positions[t]]);
    kernels::store_block<BW>(block, w);
  }
};

struct CountBits {
  const uint32_t* words;
  GDEDUP_HD uint64_t operator()(uint64_t i) const { return kernels::popcount(words[i]); }
};

struct RandomKey {
  uint64_t* keys;
  uint64_t seed;
  GDEDUP_HD void operator()(uint64_t i) const { keys[i] = kernels::splitmix64(seed, i); }
};

struct Gather64 {
  const uint32_t* words;
  uint64_t pieces;
  uint64_t seed;
  GDEDUP_HD uint64_t operator()(uint64_t i) const {
    const uint64_t piece = kernels::splitmix64(seed, i) & (pieces - 1);
    uint32_t w[16];
    kernels::load_block_readonly<16>(words + piece * 16, w);
    uint32_t all = 0;
    GDEDUP_UNROLL
    for (uint32_t j = 0; j < 16; ++j) all ^= w[j];
    return all & 1;
  }
};

// Calls fn(BW, BPW) with the layout's geometry as compile-time constants
// (layout.h's dispatch_layout), so each layout gets its own unrolled code.
template <class Fn>
void with_layout(const FilterRef& f, Fn&& fn) {
  dispatch_layout(f.layout, fn, [&] {
    throw Error("the CUDA kernels have no layout with " + std::to_string(f.layout.block_bits) +
                "-bit blocks and k = " + std::to_string(f.layout.k) + ".");
  });
}

#if defined(GDEDUP_CPU_DEVICE)
// The keys test_and_set left to the sort (take_sorted_keys).
std::atomic<uint64_t> sorted_keys{0};
#endif


template <uint32_t BW, uint32_t BPW>
using MaskIterator =
    thrust::transform_iterator<SortedMask<BW, BPW>, thrust::counting_iterator<uint64_t>>;

// Where test_and_set's sort left the pairs.
struct SortedPairs {
  const uint64_t* blocks;
  const uint32_t* positions;
};

#if defined(__CUDACC__)
// Runs a CUB algorithm on the workspace's scratch: sized once for the
// largest chunk (test_and_set_scratch_bytes), checked here.
template <class Algorithm>
void run_cub(const TestAndSetWorkspace& ws, Algorithm algorithm) {
  size_t needed = 0;
  GDEDUP_CUDA_CHECK(algorithm(nullptr, needed));
  if (needed > ws.scratch_bytes) {
    throw Error("test_and_set needs " + std::to_string(needed) + " bytes of scratch space but " +
                std::to_string(ws.scratch_bytes) + " were set aside.");
  }
  size_t bytes = ws.scratch_bytes;
  GDEDUP_CUDA_CHECK(algorithm(ws.scratch, bytes));
}
#endif

// Step 2: sorts (block, position) pairs stably by the block's `bits` bits.
SortedPairs sort_pairs(const TestAndSetWorkspace& ws, uint64_t count, uint32_t bits,
                       cudaStream_t stream) {
#if defined(__CUDACC__)
  cub::DoubleBuffer<uint64_t> blocks(ws.blocks[0], ws.blocks[1]);
  cub::DoubleBuffer<uint32_t> positions(ws.positions[0], ws.positions[1]);
  run_cub(ws, [&](void* scratch, size_t& bytes) {
    return cub::DeviceRadixSort::SortPairs(scratch, bytes, blocks, positions,
                                           static_cast<int>(count), 0, static_cast<int>(bits),
                                           stream);
  });
  return SortedPairs{blocks.Current(), positions.Current()};
#else
  // Block indices are below 2^bits, so sorting whole words gives the same order.
  (void)bits;
  uint64_t* blocks = ws.blocks[0];
  uint32_t* positions = ws.positions[0];
  enqueue(stream, [blocks, positions, count] {
    thrust::stable_sort_by_key(thrust::cpp::par, blocks, blocks + count, positions);
  });
  return SortedPairs{blocks, positions};
#endif
}

// Step 3: before[t] = OR of the masks of the sorted keys before t in its
// block's segment.
template <uint32_t BW, uint32_t BPW>
void scan_masks(const TestAndSetWorkspace& ws, const SortedPairs& sorted,
                const uint64_t* fingerprints, uint64_t count, kernels::BlockMask<BW>* before,
                cudaStream_t stream) {
  const MaskIterator<BW, BPW> masks(thrust::counting_iterator<uint64_t>(0),
                                    SortedMask<BW, BPW>{fingerprints, sorted.positions});
#if defined(__CUDACC__)
  run_cub(ws, [&](void* scratch, size_t& bytes) {
    return cub::DeviceScan::ExclusiveScanByKey(
        scratch, bytes, sorted.blocks, masks, before, kernels::OrMasks<BW>{},
        kernels::BlockMask<BW>{}, static_cast<uint32_t>(count), ::cuda::std::equal_to<>{}, stream);
  });
#else
  (void)ws;
  const uint64_t* blocks = sorted.blocks;
  enqueue(stream, [blocks, masks, before, count] {
    thrust::exclusive_scan_by_key(thrust::cpp::par, blocks, blocks + count, masks, before,
                                  kernels::BlockMask<BW>{}, thrust::equal_to<uint64_t>(),
                                  kernels::OrMasks<BW>{});
  });
#endif
}

// Whether a key's answer is kDeferred: the compaction's flag.
struct IsDeferred {
  GDEDUP_HD bool operator()(uint8_t answer) const { return answer == kDeferred; }
};

// The batch positions begin + i (i < n) of the deferred keys, in order, to
// ws.positions[0], and their count to *ws.sort_count.
void compact_deferred(const TestAndSetWorkspace& ws, const uint8_t* was_present, uint64_t begin,
                      uint64_t n, cudaStream_t stream) {
  const thrust::counting_iterator<uint32_t> first(static_cast<uint32_t>(begin));
  const thrust::transform_iterator<IsDeferred, const uint8_t*> flags(was_present + begin,
                                                                      IsDeferred{});
#if defined(__CUDACC__)
  run_cub(ws, [&](void* scratch, size_t& bytes) {
    return cub::DeviceSelect::Flagged(scratch, bytes, first, flags, ws.positions[0],
                                      ws.sort_count, static_cast<int>(n), stream);
  });
#else
  uint32_t* out = ws.positions[0];
  uint32_t* count = ws.sort_count;
  enqueue(stream, [first, n, flags, out, count] {
    uint32_t* end = thrust::copy_if(thrust::cpp::par, first, first + n, flags, out,
                                    [](bool flag) { return flag; });
    *count = static_cast<uint32_t>(end - out);
  });
#endif
}

// A 4-byte count on the device, on the host: waits for the stream.
uint32_t read_count(const TestAndSetWorkspace& ws, const uint32_t* count, cudaStream_t stream) {
  GDEDUP_CUDA_CHECK(cudaMemcpyAsync(ws.host_words, count, sizeof(uint32_t),
                                    cudaMemcpyDeviceToHost, stream));
  GDEDUP_CUDA_CHECK(cudaStreamSynchronize(stream));
  return ws.host_words[0];
}

// The batch's flags on the host: waits for the stream.
struct Flags {
  bool deferred;
  bool lost;
};
Flags read_flags(const TestAndSetWorkspace& ws, cudaStream_t stream) {
  GDEDUP_CUDA_CHECK(cudaMemcpyAsync(ws.host_words, ws.flags, 2 * sizeof(uint32_t),
                                    cudaMemcpyDeviceToHost, stream));
  GDEDUP_CUDA_CHECK(cudaStreamSynchronize(stream));
  return Flags{ws.host_words[kDeferredFlag] != 0, ws.host_words[kLostFlag] != 0};
}

// A chunk's positions fit the table's entries.
static_assert(kChunkKeys <= kernels::kEntryPositions, "chunk positions exceed the table entry");

// Keys a chunk takes: few enough that about 1 in 32 shares its block with
// another, within the workspace and its table.
uint64_t chunk_keys(const TestAndSetWorkspace& ws, uint64_t blocks) {
  const uint64_t table_keys = uint64_t{1} << (ws.table_log2 - 1);
  return std::min({ws.capacity, table_keys, std::max(blocks / 32, kMinChunkKeys)});
}

}  // namespace

#if defined(GDEDUP_CPU_DEVICE)
uint64_t take_longest_thread_keys() { return longest_thread_keys.exchange(0); }
uint64_t take_sorted_keys() { return sorted_keys.exchange(0); }
#endif

LaunchShape launch_shape(int device) {
  int sms = 0;
  GDEDUP_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return LaunchShape{sms};
}

cudaError_t probe_kernels() {
#if defined(__CUDACC__)
  cudaFuncAttributes attributes{};
  const cudaError_t status =
      cudaFuncGetAttributes(&attributes, for_each_kernel<RandomKey>);
  if (status != cudaSuccess) cudaGetLastError();
  return status;
#else
  return cudaSuccess;
#endif
}

size_t test_and_set_scratch_bytes(uint64_t keys) {
  if (keys > kMaxBatchKeys) {
    throw Error("a test_and_set batch holds at most " + std::to_string(kMaxBatchKeys) +
                " keys; got " + std::to_string(keys) + ".");
  }
#if defined(__CUDACC__)
  size_t most = 0;
  const auto note = [&](size_t bytes) { most = std::max(most, bytes); };
  cub::DoubleBuffer<uint64_t> blocks(nullptr, nullptr);
  cub::DoubleBuffer<uint32_t> positions(nullptr, nullptr);
  size_t bytes = 0;
  GDEDUP_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, blocks, positions,
                                                    static_cast<int>(keys), 0, 64));
  note(bytes);
  // The scan's scratch depends on the mask's size, not on bits per word.
  const auto scan_bytes = [&](auto bw) {
    constexpr uint32_t BW = decltype(bw)::value;
    const MaskIterator<BW, 1> masks(thrust::counting_iterator<uint64_t>(0),
                                    SortedMask<BW, 1>{nullptr, nullptr});
    size_t b = 0;
    GDEDUP_CUDA_CHECK(cub::DeviceScan::ExclusiveScanByKey(
        nullptr, b, static_cast<const uint64_t*>(nullptr), masks,
        static_cast<kernels::BlockMask<BW>*>(nullptr), kernels::OrMasks<BW>{},
        kernels::BlockMask<BW>{}, static_cast<uint32_t>(keys), ::cuda::std::equal_to<>{}));
    note(b);
  };
  scan_bytes(std::integral_constant<uint32_t, 8>{});
  scan_bytes(std::integral_constant<uint32_t, 16>{});
  GDEDUP_CUDA_CHECK(cub::DeviceSelect::Flagged(
      nullptr, bytes, thrust::counting_iterator<uint32_t>(0),
      thrust::transform_iterator<IsDeferred, const uint8_t*>(nullptr, IsDeferred{}),
      static_cast<uint32_t*>(nullptr), static_cast<uint32_t*>(nullptr),
      static_cast<int>(std::min(keys, kChunkKeys))));
  note(bytes);
  return most;
#else
  return 0;
#endif
}

void launch_add(const FilterRef& filter, const uint64_t* fingerprints, uint64_t count,
                LaunchShape shape, cudaStream_t stream) {
  if (count == 0) return;
  with_layout(filter, [&](auto bw, auto bpw) {
    using Add = AddKey<decltype(bw)::value, decltype(bpw)::value>;
    for_each_index(Add{filter, fingerprints}, count, shape, stream);
  });
}

void launch_contains(const FilterRef& filter, const uint64_t* fingerprints, uint64_t count,
                     uint8_t* present, LaunchShape shape, cudaStream_t stream) {
  if (count == 0) return;
  with_layout(filter, [&](auto bw, auto bpw) {
    using Contains = ContainsKey<decltype(bw)::value, decltype(bpw)::value>;
    for_each_index(Contains{filter, fingerprints, present}, count, shape, stream);
  });
}

void launch_test_and_set(const FilterRef& filter, const uint64_t* fingerprints,
                         uint64_t count, uint8_t* was_present,
                         unsigned long long* fresh, const TestAndSetWorkspace& workspace,
                         LaunchShape shape, cudaStream_t stream, cudaEvent_t chain) {
  if (count == 0) return;
  if (count > kMaxBatchKeys) {
    throw Error("a test_and_set batch holds at most " + std::to_string(kMaxBatchKeys) +
                " keys; got " + std::to_string(count) + ".");
  }
  if (filter.num_blocks > kernels::kMaxTableBlocks) {
    throw Error("test_and_set on the GPU takes filters of at most " +
                std::to_string(kernels::kMaxTableBlocks) + " blocks; this one has " +
                std::to_string(filter.num_blocks) + ".");
  }
  const uint32_t bits = std::max(kernels::bit_width(filter.num_blocks - 1), 1u);
  const uint64_t chunk = chunk_keys(workspace, filter.held_blocks);
  with_layout(filter, [&](auto bw, auto bpw) {
    constexpr uint32_t BW = decltype(bw)::value, BPW = decltype(bpw)::value;
    auto* before = static_cast<kernels::BlockMask<BW>*>(workspace.before);
    GDEDUP_CUDA_CHECK(cudaMemsetAsync(workspace.flags, 0, 2 * sizeof(uint32_t), stream));
    for (uint64_t begin = 0; begin < count; begin += chunk) {
      const uint64_t n = std::min(chunk, count - begin);
      const uint32_t log2 = test_and_set_table_log2(n);
      GDEDUP_CUDA_CHECK(cudaMemsetAsync(workspace.table, 0, sizeof(uint64_t) << log2, stream));
      for_each_index(
          MarkFingerprint{filter, fingerprints + begin, workspace.table, log2, workspace.flags},
          n, shape, stream);
      if (begin == 0) GDEDUP_CUDA_CHECK(cudaStreamWaitEvent(stream, chain, 0));
      sum_into(AnswerFirst<BW, BPW>{filter, fingerprints + begin, workspace.table, log2,
                                    workspace.flags, was_present + begin},
               n, fresh, shape, stream);
    }
    // The deferred keys, window by window of the chunks, in position order:
    // the sort and the scan take their length from the host.
    const Flags flags = read_flags(workspace, stream);
    if (flags.lost) {
      throw Error("test_and_set on the GPU lost a key of its batch of " + std::to_string(count) +
                  " keys: a probe of its chunk's table found no entry where the key's must be " +
                  "(a fault of the device or of the kernels); the filter on the device is not " +
                  "to be trusted after this batch.");
    }
    if (flags.deferred) {
      for (uint64_t begin = 0; begin < count; begin += chunk) {
        const uint64_t n = std::min(chunk, count - begin);
        compact_deferred(workspace, was_present, begin, n, stream);
        const uint64_t m = read_count(workspace, workspace.sort_count, stream);
#if defined(GDEDUP_CPU_DEVICE)
        sorted_keys += m;
#endif
        if (m == 0) continue;
        for_each_index(CompactedBlock{filter, fingerprints, workspace.positions[0],
                                      workspace.blocks[0]},
                       m, shape, stream);
        const SortedPairs sorted = sort_pairs(workspace, m, bits, stream);
        scan_masks<BW, BPW>(workspace, sorted, fingerprints, m, before, stream);
        const SortedBatch<BW> batch{filter, fingerprints, sorted.blocks, sorted.positions,
                                    before, m};
        sum_into(AnswerSorted<BW, BPW>{batch, was_present}, m, fresh, shape, stream);
        for_each_index(StoreSegment<BW, BPW>{batch}, m, shape, stream);
      }
    }
    GDEDUP_CUDA_CHECK(cudaEventRecord(chain, stream));
  });
}

void launch_count_set_bits(const FilterRef& filter, unsigned long long* total,
                           LaunchShape shape, cudaStream_t stream) {
  const uint64_t words = filter.held_words();
  if (words == 0) return;
  sum_into(CountBits{filter.words}, words, total, shape, stream);
}

void launch_random_keys(uint64_t* keys, uint64_t count, uint64_t seed, LaunchShape shape,
                        cudaStream_t stream) {
  if (count == 0) return;
  for_each_index(RandomKey{keys, seed}, count, shape, stream);
}

void launch_gather64(const uint32_t* words, uint64_t pieces, uint64_t count, uint64_t seed,
                     unsigned long long* total, LaunchShape shape, cudaStream_t stream) {
  if (count == 0 || pieces == 0) return;
  sum_into(Gather64{words, pieces, seed}, count, total, shape, stream);
}

}  // namespace gdedup::cuda
