// The gdedup filter layout in one place (docs/FORMAT.md, "Bit positions"):
// the layouts, the per-key arithmetic, the dispatch from a layout to code
// compiled for it, and FilterRef, the filter as every backend addresses it.
// Every backend -- the scalar reference, the SIMD kernels and the CUDA
// kernels -- calls these functions, so a filter built by one is read by the
// others bit for bit. The GDEDUP_HD functions run on CUDA devices too: keep
// them free of anything a device function cannot use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <type_traits>

#if defined(__CUDACC__)
#define GDEDUP_HD __host__ __device__ __forceinline__
#define GDEDUP_UNROLL _Pragma("unroll")
#else
#define GDEDUP_HD inline
#define GDEDUP_UNROLL _Pragma("GCC unroll 16")
#endif

namespace gdedup {

// A block is kWordBits-bit words; each key sets bits_per_word bits in every
// word of its block ("split block" layout, as in Parquet's filter, which is
// the case block_bits = 256, bits_per_word = 1).
constexpr uint32_t kWordBits = 32;
constexpr uint32_t kMaxBlockWords = 16;  // 512-bit blocks
constexpr uint32_t kMaxBitsPerWord = 2;
constexpr uint32_t kSaltCount = kMaxBlockWords * kMaxBitsPerWord;

// Block sizes and bits per key the format supports. k = block_bits / 32 *
// bits_per_word, so the layouts are (256, 8), (256, 16), (512, 16), (512, 32).
struct Layout {
  uint32_t block_bits;  // 256 or 512
  uint32_t k;           // bits set per key

  // The block's kWordBits-bit words: 8 or 16.
  GDEDUP_HD constexpr uint32_t block_words() const { return block_bits / kWordBits; }
  // The bits a key sets in each word of its block: 1 or 2.
  GDEDUP_HD constexpr uint32_t bits_per_word() const { return k / block_words(); }

  GDEDUP_HD constexpr bool operator==(const Layout& o) const {
    return block_bits == o.block_bits && k == o.k;
  }
};

// The layouts docs/FORMAT.md defines, in the planner's order of preference
// on ties. Every list of layouts in the code is this one: the planner tries
// these, FilterParams::validate admits these, and dispatch_layout compiles
// each backend's code for each of these.
inline constexpr Layout kLayouts[] = {{256, 8}, {256, 16}, {512, 16}, {512, 32}};
inline constexpr size_t kLayoutCount = sizeof kLayouts / sizeof kLayouts[0];

constexpr bool is_supported_layout(const Layout& layout) {
  for (const Layout& l : kLayouts) {
    if (l == layout) return true;
  }
  return false;
}

// Calls fn(words, bits) with the block's words and bits per word of
// `layout` as std::integral_constant<uint32_t, ...>, so that each layout of
// kLayouts gets its own unrolled code; otherwise() for any other layout
// (both must return the same type). Every backend dispatches through here,
// on the host.
template <size_t I = 0, class Fn, class Otherwise>
decltype(auto) dispatch_layout(const Layout& layout, Fn&& fn, Otherwise&& otherwise) {
  if constexpr (I == kLayoutCount) {
    return otherwise();
  } else {
    constexpr Layout kThis = kLayouts[I];
    if (layout == kThis) {
      return fn(std::integral_constant<uint32_t, kThis.block_words()>{},
                std::integral_constant<uint32_t, kThis.bits_per_word()>{});
    }
    return dispatch_layout<I + 1>(layout, fn, otherwise);
  }
}

// Odd multipliers for the multiply-shift that picks a bit inside a word.
// Salt r * words + j serves word j, round r. The first eight are Parquet's.
GDEDUP_HD uint32_t salt(uint32_t i) {
  constexpr uint32_t kSalt[kSaltCount] = {
      0x47b6137bu, 0x44974d91u, 0x8824ad5bu, 0xa2b7289du, 0x705495c7u,
      0x2df1424bu, 0x9efc4947u, 0x5c6bfb31u, 0x8aa6ddb3u, 0xa30a0d8fu,
      0xadfd3273u, 0xeb1cc9efu, 0xde8c1527u, 0x3585043du, 0xe7af4235u,
      0x4ae78b99u, 0xa4bb287du, 0xccc917bbu, 0xf62147bbu, 0x3a3656f3u,
      0x92c28677u, 0x8b653e49u, 0xbcef1c79u, 0x645557cbu, 0x5788c311u,
      0x687f1dedu, 0xdac77f67u, 0xd4d37b57u, 0x10f21c29u, 0x7c2bad03u,
      0xec6b3cb3u, 0xbeb23d07u};
  return kSalt[i];
}

// High 64 bits of a 64x64-bit product: maps a fingerprint uniformly onto
// [0, num_blocks) for any num_blocks up to 2^64 - 1, without division.
GDEDUP_HD uint64_t mul_hi64(uint64_t a, uint64_t b) {
#if defined(__CUDA_ARCH__)
  return __umul64hi(a, b);
#elif defined(__SIZEOF_INT128__)
  return static_cast<uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
#else
  const uint64_t a_lo = a & 0xffffffffu, a_hi = a >> 32;
  const uint64_t b_lo = b & 0xffffffffu, b_hi = b >> 32;
  const uint64_t lo_lo = a_lo * b_lo, hi_lo = a_hi * b_lo, lo_hi = a_lo * b_hi;
  const uint64_t cross = (lo_lo >> 32) + (hi_lo & 0xffffffffu) + lo_hi;
  return a_hi * b_hi + (hi_lo >> 32) + (cross >> 32);
#endif
}

// The block a fingerprint belongs to. Uses mostly the high bits of the
// fingerprint; the bits inside the block come from its low 32 bits.
GDEDUP_HD uint64_t block_index(uint64_t fingerprint, uint64_t num_blocks) {
  return mul_hi64(fingerprint, num_blocks);
}

// The bits this key sets in word `word` of its block: bits_per_word distinct
// rounds of multiply-shift, OR-ed (two rounds may pick the same bit).
GDEDUP_HD uint32_t word_mask(uint64_t fingerprint, uint32_t word,
                             uint32_t block_words, uint32_t bits_per_word) {
  const uint32_t lo = static_cast<uint32_t>(fingerprint);
  uint32_t mask = 0;
  for (uint32_t r = 0; r < bits_per_word; ++r) {
    mask |= 1u << ((lo * salt(r * block_words + word)) >> 27);
  }
  return mask;
}

// A filter, or a shard of one, as the kernels see it: trivially copyable,
// so that it passes by value to device code and to threads. A fingerprint
// picks its block among all num_blocks blocks of the filter; `words` holds
// the held_blocks blocks from global block first_block on, so a backend that
// holds a shard finds global block b at local block b - first_block. A
// whole filter is the shard that starts at block 0 and holds every block.
struct FilterRef {
  uint32_t* words;        // contains never writes through it
  uint64_t num_blocks;    // of the whole filter
  Layout layout;
  uint64_t first_block;   // the global index of the block `words` starts with
  uint64_t held_blocks;   // blocks at `words`

  // The global index of the fingerprint's block.
  GDEDUP_HD uint64_t block_of(uint64_t fingerprint) const {
    return block_index(fingerprint, num_blocks);
  }
  // Whether global block `block` is one of those at `words`.
  GDEDUP_HD bool holds(uint64_t block) const { return block - first_block < held_blocks; }
  // The words of global block `block`, which this reference holds.
  GDEDUP_HD uint32_t* block(uint64_t block) const {
    return words + (block - first_block) * layout.block_words();
  }
  GDEDUP_HD uint64_t held_words() const { return held_blocks * layout.block_words(); }
};
static_assert(std::is_trivially_copyable_v<FilterRef>,
              "kernels take a FilterRef by value, on the device and on threads");

// A reference to the whole filter of `num_blocks` blocks at `words`.
GDEDUP_HD constexpr FilterRef whole_filter(uint32_t* words, uint64_t num_blocks, Layout layout) {
  return FilterRef{words, num_blocks, layout, 0, num_blocks};
}

// A key's work on its block, split as RocksDB's bloom_impl.h splits its
// probe: first prepare (FilterRef::block_of locates the block, which a
// caller may prefetch, and block_masks computes the key's bits), then probe
// the block with the masks. BW and BPW are the layout's block_words() and
// bits_per_word(), fixed at compile time (dispatch_layout) so that every
// loop unrolls and each salt is a constant: calling word_mask per word left
// the salt table in local memory in the CUDA kernels of (256, 16) (128 bytes
// of stack per thread, seen in ptxas -v). Tests check it against word_mask.
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

// Whether every bit of the masks is set in the block's words.
template <uint32_t BW>
GDEDUP_HD bool block_has_masks(const uint32_t* block, const uint32_t (&m)[BW]) {
  bool all = true;
  GDEDUP_UNROLL
  for (uint32_t j = 0; j < BW; ++j) all &= (block[j] & m[j]) == m[j];
  return all;
}

// Sets the masks' bits in the block's words; returns whether all of them
// were set before.
template <uint32_t BW>
GDEDUP_HD bool block_add_masks(uint32_t* block, const uint32_t (&m)[BW]) {
  bool all = true;
  GDEDUP_UNROLL
  for (uint32_t j = 0; j < BW; ++j) {
    all &= (block[j] & m[j]) == m[j];
    block[j] |= m[j];
  }
  return all;
}

// probe(block, masks) on the key's block and masks, with the code of the
// filter's layout. A layout outside kLayouts, which FilterParams::validate
// never admits, aborts.
template <class Probe>
bool probe_key(const FilterRef& filter, uint64_t fingerprint, Probe probe) {
  return dispatch_layout(
      filter.layout,
      [&](auto words, auto bits) {
        constexpr uint32_t BW = decltype(words)::value, BPW = decltype(bits)::value;
        uint32_t m[BW];
        block_masks<BW, BPW>(fingerprint, m);
        return probe(filter.block(filter.block_of(fingerprint)), m);
      },
      []() -> bool { std::abort(); });
}

// The scalar reference: one key at a time, on the host. Every backend's
// tests compare answers and bits with these, applied in input order. The
// key's block must be one `filter` holds.
inline bool key_contains(const FilterRef& filter, uint64_t fingerprint) {
  return probe_key(filter, fingerprint,
                   [](const uint32_t* block, const auto& m) { return block_has_masks(block, m); });
}

// Sets the key's bits; returns whether all of them were set before.
inline bool key_test_and_set(const FilterRef& filter, uint64_t fingerprint) {
  return probe_key(filter, fingerprint,
                   [](uint32_t* block, const auto& m) { return block_add_masks(block, m); });
}

}  // namespace gdedup
