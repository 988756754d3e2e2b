// The per-key arithmetic of the gdedup filter layout (docs/FORMAT.md, "Bit
// positions"). Every backend -- the scalar reference, the SIMD kernels and the
// CUDA kernels -- calls these functions, so a filter built by one is read by
// the others bit for bit. Keep this header free of anything a CUDA device
// function cannot use.
#pragma once

#include <cstdint>
#include <type_traits>

#if defined(__CUDACC__)
#define GDEDUP_HD __host__ __device__ __forceinline__
#else
#define GDEDUP_HD inline
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

  constexpr bool operator==(const Layout& o) const {
    return block_bits == o.block_bits && k == o.k;
  }
};

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

// Geometry of a filter as the kernels see it: trivially copyable, passed by
// value to device code.
struct BlockGeometry {
  uint64_t num_blocks;
  uint32_t block_words;    // 8 (256-bit blocks) or 16 (512-bit blocks)
  uint32_t bits_per_word;  // 1 or 2; k = block_words * bits_per_word

  GDEDUP_HD uint64_t first_word(uint64_t fingerprint) const {
    return block_index(fingerprint, num_blocks) * block_words;
  }
};

// The geometry of `num_blocks` blocks of `layout`: the one place that turns
// block bits and k into words a block and bits a word.
GDEDUP_HD constexpr BlockGeometry geometry_of(const Layout& layout, uint64_t num_blocks) {
  return BlockGeometry{num_blocks, layout.block_bits / kWordBits,
                       layout.k / (layout.block_bits / kWordBits)};
}

// Calls fn(words, bits) with the block's words and bits per word as
// std::integral_constant<uint32_t, ...>, so that each geometry the format
// defines gets its own unrolled code; otherwise() for any other geometry.
// Every backend dispatches through here, on the host.
template <class Fn, class Otherwise>
decltype(auto) dispatch_geometry(const BlockGeometry& g, Fn&& fn, Otherwise&& otherwise) {
  using W8 = std::integral_constant<uint32_t, 8>;
  using W16 = std::integral_constant<uint32_t, 16>;
  using P1 = std::integral_constant<uint32_t, 1>;
  using P2 = std::integral_constant<uint32_t, 2>;
  if (g.block_words == 8 && g.bits_per_word == 1) return fn(W8{}, P1{});
  if (g.block_words == 8 && g.bits_per_word == 2) return fn(W8{}, P2{});
  if (g.block_words == 16 && g.bits_per_word == 1) return fn(W16{}, P1{});
  if (g.block_words == 16 && g.bits_per_word == 2) return fn(W16{}, P2{});
  return otherwise();
}

// A key's probe of its block, once the block is located (first_word): split
// from the locating, as RocksDB's bloom_impl.h splits its probe, so that a
// caller can locate and prefetch blocks ahead of probing them. Only the
// geometry's block_words and bits_per_word are read.
GDEDUP_HD bool block_has_key(const uint32_t* block, const BlockGeometry& g, uint64_t fingerprint) {
  bool all = true;
  for (uint32_t j = 0; j < g.block_words; ++j) {
    const uint32_t m = word_mask(fingerprint, j, g.block_words, g.bits_per_word);
    all &= (block[j] & m) == m;
  }
  return all;
}

// Sets the key's bits in its block; returns whether all of them were set
// before.
GDEDUP_HD bool block_add_key(uint32_t* block, const BlockGeometry& g, uint64_t fingerprint) {
  bool all = true;
  for (uint32_t j = 0; j < g.block_words; ++j) {
    const uint32_t m = word_mask(fingerprint, j, g.block_words, g.bits_per_word);
    all &= (block[j] & m) == m;
    block[j] |= m;
  }
  return all;
}

// Scalar reference operations on one key, shared by every backend's tests and
// by the CUDA kernels' sequential paths. `words` is the whole bit array.
GDEDUP_HD bool key_contains(const uint32_t* words, const BlockGeometry& g,
                            uint64_t fingerprint) {
  return block_has_key(words + g.first_word(fingerprint), g, fingerprint);
}

// Sets the key's bits; returns whether all of them were set before.
GDEDUP_HD bool key_test_and_set(uint32_t* words, const BlockGeometry& g,
                                uint64_t fingerprint) {
  return block_add_key(words + g.first_word(fingerprint), g, fingerprint);
}

}  // namespace gdedup
