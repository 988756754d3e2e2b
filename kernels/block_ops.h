// Per-key pieces of the CUDA kernels that do not need a GPU: the block held
// in registers, a key's masks, and the two steps of test_and_set. Plain C++
// as well as CUDA, so the CPU tests run the very code the kernels run
// (tests/gpu_backend_test.cpp), and kernels/filter_kernels.cu runs it on
// either device.
//
// Why test_and_set gives sequential answers: all k bits of a key lie in its
// block, so key i's answer depends only on the block as the batch found it
// and on the keys j < i of the same block. With the batch sorted stably by
// block, those keys are the ones before i in its block's segment, and the OR
// of their masks is a segmented exclusive scan: key i is present iff its
// mask lies within block | scan[i]. The last key of each segment then writes
// block | scan | its mask, once. Every step is one thread per key, however
// many keys share a block. Only the first occurrence of a fingerprint in the
// batch can be new: a later equal key finds the bits the first one set, and
// sets none, so it is present and takes no part. A first occurrence that no
// other fingerprint of its chunk shares a block with needs none of the sort:
// block_test_and_set answers it alone.
#pragma once

#include <cstdint>

#if defined(GDEDUP_CPU_DEVICE)
#include <thread>
#endif

#include "gdedup/layout.h"

namespace gdedup::kernels {

#if defined(GDEDUP_CPU_DEVICE)
// Set by the CPU device's concurrent launches (tests/cuda_standin/README.md)
// for each of their OS threads: xorshift state that decides at each step
// whether the thread yields first.
struct Interleaving {
  uint64_t state;
};
inline thread_local Interleaving* interleaving = nullptr;

// The next of its xorshift numbers.
inline uint64_t next_random(Interleaving& r) {
  uint64_t& x = r.state;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  return x;
}
#endif

// Between two steps of a thread on memory that other threads of the launch
// touch (a table entry, a filter lane): in the CPU device's concurrent
// launches a random yield, so that other threads come between the steps,
// as they do on a GPU; nothing elsewhere.
GDEDUP_HD void between_steps() {
#if defined(GDEDUP_CPU_DEVICE)
  if (interleaving != nullptr && (next_random(*interleaving) & 1) != 0) std::this_thread::yield();
#endif
}

// Number of bits needed to write v (0 for 0).
GDEDUP_HD uint32_t bit_width(uint64_t v) {
  uint32_t w = 0;
  while (v != 0) {
    ++w;
    v >>= 1;
  }
  return w;
}

#if defined(GDEDUP_CPU_DEVICE)
// On the CPU device each thread counts its calls of counted_masks (one per key
// it works through), so that tests can bound the keys one GPU thread would
// handle in turn: a kernel lasts as long as its longest thread.
inline thread_local uint64_t cpu_device_steps = 0;
#endif

// The key's mask for every word of its block (layout.h's block_masks),
// counted on the CPU device: the one way the kernels prepare a key.
template <uint32_t BW, uint32_t BPW>
GDEDUP_HD void counted_masks(uint64_t fingerprint, uint32_t (&m)[BW]) {
#if defined(GDEDUP_CPU_DEVICE)
  ++cpu_device_steps;
#endif
  gdedup::block_masks<BW, BPW>(fingerprint, m);
}

// A block's words in registers. Indexed only by unrolled loops over the
// template parameter, so the array stays in registers on the device.
template <uint32_t BW>
GDEDUP_HD void load_block(const uint32_t* p, uint32_t (&w)[BW]) {
#if defined(__CUDA_ARCH__)
  // Blocks are 32- or 64-byte aligned: two or four 16-byte loads.
  const uint4* q = reinterpret_cast<const uint4*>(p);
  GDEDUP_UNROLL
  for (uint32_t i = 0; i < BW / 4; ++i) {
    const uint4 v = q[i];
    w[4 * i] = v.x;
    w[4 * i + 1] = v.y;
    w[4 * i + 2] = v.z;
    w[4 * i + 3] = v.w;
  }
#else
  GDEDUP_UNROLL
  for (uint32_t j = 0; j < BW; ++j) w[j] = p[j];
#endif
}

// As load_block, through the read-only data cache on the device: only for
// kernels during which no thread writes the filter.
template <uint32_t BW>
GDEDUP_HD void load_block_readonly(const uint32_t* p, uint32_t (&w)[BW]) {
#if defined(__CUDA_ARCH__)
  const uint4* q = reinterpret_cast<const uint4*>(p);
  GDEDUP_UNROLL
  for (uint32_t i = 0; i < BW / 4; ++i) {
    const uint4 v = __ldg(q + i);
    w[4 * i] = v.x;
    w[4 * i + 1] = v.y;
    w[4 * i + 2] = v.z;
    w[4 * i + 3] = v.w;
  }
#else
  load_block<BW>(p, w);
#endif
}

// A fingerprint, through the read-only data cache on the device.
GDEDUP_HD uint64_t load_readonly(const uint64_t* p) {
#if defined(__CUDA_ARCH__)
  return __ldg(p);
#else
  return *p;
#endif
}

GDEDUP_HD uint32_t popcount(uint32_t v) {
#if defined(__CUDA_ARCH__)
  return static_cast<uint32_t>(__popc(v));
#else
  return static_cast<uint32_t>(__builtin_popcount(v));
#endif
}

// splitmix64's output number i + 1 after `seed`: benchmark keys.
GDEDUP_HD uint64_t splitmix64(uint64_t seed, uint64_t i) {
  uint64_t z = seed + (i + 1) * 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

template <uint32_t BW>
GDEDUP_HD void store_block(uint32_t* p, const uint32_t (&w)[BW]) {
#if defined(__CUDA_ARCH__)
  uint4* q = reinterpret_cast<uint4*>(p);
  GDEDUP_UNROLL
  for (uint32_t i = 0; i < BW / 4; ++i) {
    q[i] = make_uint4(w[4 * i], w[4 * i + 1], w[4 * i + 2], w[4 * i + 3]);
  }
#else
  GDEDUP_UNROLL
  for (uint32_t j = 0; j < BW; ++j) p[j] = w[j];
#endif
}

template <uint32_t BW, uint32_t BPW>
GDEDUP_HD bool block_contains(const uint32_t (&w)[BW], uint64_t fingerprint) {
  uint32_t m[BW];
  counted_masks<BW, BPW>(fingerprint, m);
  return block_has_masks<BW>(w, m);
}

// The bits of the key still clear in `w`, as BW / 2 little-endian 64-bit
// words (word 2q in the low half): what add ORs in with 64-bit atomics. Bits
// seen set stay set, so skipping a zero lane never loses a bit, and a
// saturated filter takes reads only.
template <uint32_t BW, uint32_t BPW>
GDEDUP_HD void block_missing(const uint32_t (&w)[BW], uint64_t fingerprint,
                             uint64_t (&missing)[BW / 2]) {
  uint32_t m[BW];
  counted_masks<BW, BPW>(fingerprint, m);
  GDEDUP_UNROLL
  for (uint32_t q = 0; q < BW / 2; ++q) {
    const uint32_t lo = m[2 * q] & ~w[2 * q];
    const uint32_t hi = m[2 * q + 1] & ~w[2 * q + 1];
    missing[q] = (static_cast<uint64_t>(hi) << 32) | lo;
  }
}

// test_and_set of a key whose fingerprint is the only one of its block in
// the batch: answers from `w` and ORs the key in. One call of counted_masks,
// so the CPU device counts one key for the thread.
template <uint32_t BW, uint32_t BPW>
GDEDUP_HD bool block_test_and_set(uint32_t (&w)[BW], uint64_t fingerprint) {
  uint32_t m[BW];
  counted_masks<BW, BPW>(fingerprint, m);
  return block_add_masks<BW>(w, m);
}

// test_and_set's table of the fingerprints a chunk holds: open addressing
// over 2^log2_entries 64-bit entries, each 0 (empty) or
//   bit 63      kOtherFingerprint: another fingerprint of the chunk falls in
//               the same block;
//   bits 62-22  the block index + 1 (the entry's tag);
//   bits 21-0   the lowest position in the chunk of the fingerprint (at most
//               kChunkKeys = 2^21 keys a chunk).
// The fingerprint itself is the one at that position. Every fingerprint of a
// block starts its probe at the block's home entry, so of two fingerprints of
// one block the later one to arrive passes the other's entry and marks both.
constexpr uint64_t kOtherFingerprint = uint64_t{1} << 63;
constexpr uint32_t kEntryPositionBits = 22;
constexpr uint64_t kEntryPositions = uint64_t{1} << kEntryPositionBits;
// Filters of more blocks than this do not fit the tag (2^41 blocks of 32
// bytes are 64 TiB).
constexpr uint64_t kMaxTableBlocks = (uint64_t{1} << (63 - kEntryPositionBits)) - 2;

GDEDUP_HD uint64_t table_entry(uint64_t block, uint64_t position) {
  return ((block + 1) << kEntryPositionBits) | position;
}

// The block index + 1 of an entry; 0 for an empty one.
GDEDUP_HD uint64_t entry_tag(uint64_t entry) {
  return (entry & ~kOtherFingerprint) >> kEntryPositionBits;
}

GDEDUP_HD uint64_t entry_position(uint64_t entry) { return entry & (kEntryPositions - 1); }

// Where the probe for a block's tag (block index + 1) starts: Fibonacci
// hashing, the top bits of a multiply, so neighbouring blocks spread over
// the table.
GDEDUP_HD uint64_t table_home(uint64_t tag, uint32_t log2_entries) {
  return log2_entries == 0 ? 0 : (tag * 0x9e3779b97f4a7c15ull) >> (64 - log2_entries);
}

// A key's masks as one value, for the segmented scan of test_and_set.
template <uint32_t BW>
struct BlockMask {
  uint32_t w[BW];
};

template <uint32_t BW>
struct OrMasks {
  GDEDUP_HD BlockMask<BW> operator()(const BlockMask<BW>& a, const BlockMask<BW>& b) const {
    BlockMask<BW> r;
    GDEDUP_UNROLL
    for (uint32_t j = 0; j < BW; ++j) r.w[j] = a.w[j] | b.w[j];
    return r;
  }
};

template <uint32_t BW, uint32_t BPW>
GDEDUP_HD BlockMask<BW> mask_of(uint64_t fingerprint) {
  BlockMask<BW> m;
  counted_masks<BW, BPW>(fingerprint, m.w);
  return m;
}

// test_and_set's answer for a key whose block held `w` when the batch
// began and whose earlier keys in the batch set `before`.
template <uint32_t BW, uint32_t BPW>
GDEDUP_HD bool present_after(const uint32_t (&w)[BW], const BlockMask<BW>& before,
                             uint64_t fingerprint) {
  uint32_t m[BW];
  counted_masks<BW, BPW>(fingerprint, m);
  uint32_t seen[BW];
  GDEDUP_UNROLL
  for (uint32_t j = 0; j < BW; ++j) seen[j] = w[j] | before.w[j];
  return block_has_masks<BW>(seen, m);
}

// The block after the last key of its segment: what the batch found, the
// masks of the keys before it and its own.
template <uint32_t BW, uint32_t BPW>
GDEDUP_HD void add_segment(uint32_t (&w)[BW], const BlockMask<BW>& before, uint64_t fingerprint) {
  uint32_t m[BW];
  counted_masks<BW, BPW>(fingerprint, m);
  GDEDUP_UNROLL
  for (uint32_t j = 0; j < BW; ++j) w[j] |= before.w[j] | m[j];
}

}  // namespace gdedup::kernels
