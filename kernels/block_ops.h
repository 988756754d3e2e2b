// Per-block pieces of the CUDA kernels that do not need a GPU: the block held
// in registers, the grouping of a batch for test_and_set, and the walk of one
// group in input order. Plain C++ as well as CUDA, so the CPU tests run the
// very code the kernels run (tests/gpu_backend_test.cpp).
//
// Why the grouping gives sequential answers: all k bits of a key lie in its
// block, so key i's answer depends only on the keys j < i of the same block.
// test_and_set sorts each batch stably by a bucket that is a function of the
// block (equal blocks, equal buckets), and one thread walks each run of equal
// buckets in input order. No two threads ever touch the same block, so the
// walk needs neither atomics nor ordering between threads.
#pragma once

#include <cstdint>

#include "gdedup/layout.h"

#if defined(__CUDACC__)
#define GDEDUP_UNROLL _Pragma("unroll")
#else
#define GDEDUP_UNROLL _Pragma("GCC unroll 16")
#endif

namespace gdedup::kernels {

// Number of bits needed to write v (0 for 0).
GDEDUP_HD uint32_t bit_width(uint64_t v) {
  uint32_t w = 0;
  while (v != 0) {
    ++w;
    v >>= 1;
  }
  return w;
}

// Which bits of the block index test_and_set sorts on. Buckets are
// block >> shift, with `bits` significant bits (1..32). Fewer bits than the
// block index has mean fewer radix passes (8 bits each) and longer runs; about
// 4 to 8 buckets per key keeps most runs at one key.
struct SortSpan {
  uint32_t shift;
  uint32_t bits;
};

GDEDUP_HD SortSpan sort_span(uint64_t num_blocks, uint64_t keys) {
  const uint32_t block_bits = bit_width(num_blocks - 1);
  uint32_t bits = bit_width(keys) + 2;
  if (bits > 32) bits = 32;
  if (bits > block_bits) bits = block_bits;
  if (bits == 0) bits = 1;  // one block: every key in one run
  const uint32_t shift = block_bits > bits ? block_bits - bits : 0;
  return SortSpan{shift, bits};
}

GDEDUP_HD uint32_t bucket_of(uint64_t fingerprint, uint64_t num_blocks, uint32_t shift) {
  return static_cast<uint32_t>(block_index(fingerprint, num_blocks) >> shift);
}

// The key's mask for every word of its block: word_mask (layout.h) for
// j = 0..BW-1, with every loop unrolled so that each salt is a constant.
// Calling word_mask per word left the salt table in local memory for the
// (256-bit, k = 16) layout (128 bytes of stack per thread, seen in ptxas -v).
// tests/gpu_backend_test.cpp checks it against word_mask.
template <uint32_t BW, uint32_t BPW>
GDEDUP_HD void block_masks(uint64_t fingerprint, uint32_t (&m)[BW]) {
  const uint32_t lo = static_cast<uint32_t>(fingerprint);
  GDEDUP_UNROLL
  for (uint32_t j = 0; j < BW; ++j) m[j] = 0;
  GDEDUP_UNROLL
  for (uint32_t r = 0; r < BPW; ++r) {
    GDEDUP_UNROLL
    for (uint32_t j = 0; j < BW; ++j) m[j] |= 1u << ((lo * salt(r * BW + j)) >> 27);
  }
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
  block_masks<BW, BPW>(fingerprint, m);
  bool all = true;
  GDEDUP_UNROLL
  for (uint32_t j = 0; j < BW; ++j) all &= (w[j] & m[j]) == m[j];
  return all;
}

// The bits of the key still clear in `w`, as BW / 2 little-endian 64-bit
// words (word 2q in the low half): what add ORs in with 64-bit atomics. Bits
// seen set stay set, so skipping a zero lane never loses a bit, and a
// saturated filter takes reads only.
template <uint32_t BW, uint32_t BPW>
GDEDUP_HD void block_missing(const uint32_t (&w)[BW], uint64_t fingerprint,
                             uint64_t (&missing)[BW / 2]) {
  uint32_t m[BW];
  block_masks<BW, BPW>(fingerprint, m);
  GDEDUP_UNROLL
  for (uint32_t q = 0; q < BW / 2; ++q) {
    const uint32_t lo = m[2 * q] & ~w[2 * q];
    const uint32_t hi = m[2 * q + 1] & ~w[2 * q + 1];
    missing[q] = (static_cast<uint64_t>(hi) << 32) | lo;
  }
}

// One thread's view of the filter while it walks a run: the block last used
// stays in registers, so a run of repeats of one key (duplicate-heavy input)
// reads and writes its block once. A run may hold several blocks when the
// bucket is coarser than the block; the cursor then writes one back before
// loading the next, and reads its own writes.
template <uint32_t BW, uint32_t BPW>
struct BlockCursor {
  uint32_t* words;
  uint64_t num_blocks;
  uint64_t current = ~uint64_t{0};
  bool dirty = false;
  uint32_t w[BW] = {};

  GDEDUP_HD BlockCursor(uint32_t* words_, uint64_t num_blocks_)
      : words(words_), num_blocks(num_blocks_) {}

  GDEDUP_HD bool test_and_set(uint64_t fingerprint) {
    const uint64_t b = block_index(fingerprint, num_blocks);
    if (b != current) {
      flush();
      current = b;
      load_block<BW>(words + b * BW, w);
    }
    uint32_t m[BW];
    block_masks<BW, BPW>(fingerprint, m);
    bool all = true;
    GDEDUP_UNROLL
    for (uint32_t j = 0; j < BW; ++j) {
      all &= (w[j] & m[j]) == m[j];
      w[j] |= m[j];
    }
    dirty |= !all;
    return all;
  }

  GDEDUP_HD void flush() {
    if (dirty) store_block<BW>(words + current * BW, w);
    dirty = false;
  }
};

// Sorted index t of a batch whose buckets are sorted stably, positions[t]
// being the key's index in the batch. If t starts a run of equal buckets,
// walks the run in input order through `cursor` and returns how many of its
// keys were new; otherwise returns 0 and touches nothing.
template <class Cursor>
GDEDUP_HD uint64_t walk_run(uint64_t t, uint64_t n, const uint32_t* buckets,
                            const uint32_t* positions, const uint64_t* fingerprints,
                            uint8_t* was_present, Cursor& cursor) {
  const uint32_t bucket = buckets[t];
  if (t > 0 && buckets[t - 1] == bucket) return 0;
  uint64_t fresh = 0;
  for (uint64_t j = t; j < n && buckets[j] == bucket; ++j) {
    const uint32_t p = positions[j];
    const bool present = cursor.test_and_set(fingerprints[p]);
    was_present[p] = present ? 1 : 0;
    fresh += present ? 0 : 1;
  }
  cursor.flush();
  return fresh;
}

}  // namespace gdedup::kernels
