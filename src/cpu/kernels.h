// The CPU kernels: one pass over a span of fingerprints with software
// prefetch, compiled once per SIMD target (Highway) and dispatched at run
// time. The threading above them lives in cpu_backend.cpp.
#pragma once

#include <cstdint>
#include <string>

#include "gdedup/layout.h"

namespace gdedup::cpu {

// How the bits of one key are computed and tested: the portable scalar code
// of layout.h, or vector code for the best instruction set at hand. Both
// visit the same blocks in the same order, so they agree bit for bit.
enum class Arith { kScalar, kSimd };

// Keys whose block lies in [block_begin, block_end) are processed in input
// order; the others are skipped (another thread owns their blocks). With
// was_present null this is `add`. Returns the number of keys that were new.
struct OwnedRange {
  uint32_t* words;
  BlockGeometry geometry;
  const uint64_t* fingerprints;
  uint64_t count;
  uint8_t* was_present;
  uint64_t block_begin;
  uint64_t block_end;
};
uint64_t test_and_set_owned(const OwnedRange& range, Arith arith);

// Read-only membership of every key in the slice.
struct KeySlice {
  const uint32_t* words;
  BlockGeometry geometry;
  const uint64_t* fingerprints;
  uint64_t count;
  uint8_t* present;
};
void contains_slice(const KeySlice& slice, Arith arith);

// The name of the target that kSimd runs on (e.g. "AVX2", "AVX3").
std::string simd_target_name();

// Restricts dispatch to the target named by GDEDUP_SIMD_TARGET (e.g. "AVX2",
// "SSE4", "EMU128"), if set. Called once before the first kernel runs; throws
// UsageError for a name this build or processor does not offer.
void apply_simd_target_override();

}  // namespace gdedup::cpu
