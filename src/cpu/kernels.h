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

// A run of keys for one kernel call. Keys are probed strictly in the order
// given, so test_and_set over a run is sequential; the caller decides which
// keys go into which run (cpu_backend.cpp hands each thread the keys of its
// own blocks).
struct KeyRun {
  uint32_t* words;  // contains never writes through it
  BlockGeometry geometry;
  const uint64_t* fingerprints;
  uint64_t count;
  uint8_t* answers;  // test_and_set: was present; null for add. contains: present
};

// Returns the number of keys that were new.
uint64_t test_and_set_run(const KeyRun& run, Arith arith);
void contains_run(const KeyRun& run, Arith arith);

// The name of the target that kSimd runs on (e.g. "AVX2", "AVX3").
std::string simd_target_name();

// Restricts dispatch to the target named by GDEDUP_SIMD_TARGET (e.g. "AVX2",
// "SSE4", "EMU128"), if set. Called once before the first kernel runs; throws
// UsageError for a name this build or processor does not offer.
void apply_simd_target_override();

}  // namespace gdedup::cpu
