// The CPU kernels: one pass over a span of fingerprints with software
// prefetch, compiled once per SIMD target (Highway) and dispatched at run
// time. The threading above them lives in cpu_backend.cpp.
#pragma once

#include <cstddef>
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
  FilterRef filter;  // holds the blocks of every key of the run
  const uint64_t* fingerprints;
  uint64_t count;
  uint8_t* answers;  // test_and_set: was present; null for add. contains: present
};

// The kernels a backend runs for its life: Arith::kScalar, or the vector
// code of one SIMD target, picked from Highway's per-target tables by the
// target's bit. The choice is the backend's own, not process-wide state, so
// two backends in one process may run on different targets.
class Kernels {
 public:
  // `simd_target` names a Highway target ("AVX3", "AVX2", "SSE4", "EMU128"),
  // or is "" for the best this processor supports. Throws UsageError for a
  // name this build or processor does not offer, listing those it does.
  Kernels(Arith arith, const std::string& simd_target);

  // Returns the number of keys that were new.
  uint64_t test_and_set_run(const KeyRun& run) const;
  void contains_run(const KeyRun& run) const;

  Arith arith() const { return arith_; }
  // The name of the target whose code runs (e.g. "AVX2"), as that code
  // reports it.
  std::string target_name() const;

 private:
  Arith arith_;
  size_t index_;  // in the tables of HWY_EXPORT
};

// The name of the best SIMD target this processor supports (e.g. "AVX2").
std::string best_simd_target_name();

}  // namespace gdedup::cpu
