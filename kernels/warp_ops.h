// Warp aggregation: the lanes of a warp that meet at one call holding the
// same value (a fingerprint, a block, an exact set's key) are peers, and the
// one of them holding the lowest position leads: it does the work of all
// (one probe, one atomic) while the others stop. Plain C++ as well as CUDA:
// on a GPU the warp's intrinsics; on the CPU device (tests/cuda_standin) the
// stand-in's warps, so that these rules run there too.
//
// Why the position and not the lane: in a grid-stride loop the lowest lane
// holds the lowest position only while every lane that meets is on the same
// pass of the loop. The CUDA programming model does not promise that
// (independent thread scheduling: a warp's lanes may diverge and meet again
// a pass apart, a whole grid of positions higher). The callers need the
// first of a key's positions to lead: that occurrence is the one that is
// new. The stand-in's warps run their lanes apart in passes for that reason.
#pragma once

#include <cstdint>

#include "gdedup/layout.h"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#error "gdedup's kernels need compute capability 8.0 or newer (__reduce_min_sync): \
set CMAKE_CUDA_ARCHITECTURES to 80 or above"
#endif

namespace gdedup::kernels {

// The most 64-bit words a lane ORs with its peers (a 512-bit block's).
constexpr uint32_t kMaxPeerWords = 8;

#if defined(GDEDUP_CPU_DEVICE)
// The CPU device's warp (launch.h runs them): the lanes a launch runs
// together in one step, each on its own pass, and what each gave where it
// met its peers. A step runs in two rounds. In the first (gathering) each
// lane runs until it meets its peers, notes its values there and stops as
// a lane that does not lead does, having done nothing; a lane that meets
// none runs to its end. In the second the lanes that noted run again, and
// the intrinsics below answer from the notes.
constexpr uint32_t kWarpLanes = 32;

struct WarpNote {
  uint64_t high;
  uint64_t low;
  uint32_t position;
  bool noted;
  uint64_t bits[kMaxPeerWords];
};

struct WarpStep {
  WarpNote lanes[kWarpLanes];
  bool gathering;
};

inline thread_local WarpStep* warp_step = nullptr;
inline thread_local uint32_t warp_lane = 0;
#endif

// Whether this lane goes on to meet its peers: false on the CPU device
// while its warp's step gathers, its values noted. Always true elsewhere.
GDEDUP_HD bool meets(uint64_t high, uint64_t low, uint32_t position, const uint64_t* bits,
                     uint32_t words) {
#if defined(GDEDUP_CPU_DEVICE)
  if (warp_step == nullptr || !warp_step->gathering) return true;
  WarpNote& note = warp_step->lanes[warp_lane];
  note.high = high;
  note.low = low;
  note.position = position;
  note.noted = true;
  for (uint32_t q = 0; q < words; ++q) note.bits[q] = bits[q];
  return false;
#else
  (void)high;
  (void)low;
  (void)position;
  (void)bits;
  (void)words;
  return true;
#endif
}

// This lane's bit in its warp's masks.
GDEDUP_HD unsigned lane_bit() {
#if defined(__CUDA_ARCH__)
  return 1u << (threadIdx.x & 31);
#elif defined(GDEDUP_CPU_DEVICE)
  return warp_step != nullptr ? 1u << warp_lane : 1u;
#else
  return 1u;
#endif
}

// The lanes active now that hold (high, low): this lane's peers.
GDEDUP_HD unsigned match_peers(uint64_t high, uint64_t low) {
#if defined(__CUDA_ARCH__)
  const unsigned active = __activemask();
  return __match_any_sync(active, high) & __match_any_sync(active, low);
#elif defined(GDEDUP_CPU_DEVICE)
  if (warp_step == nullptr) return 1u;
  unsigned peers = 0;
  for (uint32_t l = 0; l < kWarpLanes; ++l) {
    const WarpNote& note = warp_step->lanes[l];
    if (note.noted && note.high == high && note.low == low) peers |= 1u << l;
  }
  return peers;
#else
  (void)high;
  (void)low;
  return 1u;
#endif
}

// As match_peers, for a value of one word (noted with 0 as its low word).
GDEDUP_HD unsigned match_peers(uint64_t value) {
#if defined(__CUDA_ARCH__)
  return __match_any_sync(__activemask(), value);
#else
  return match_peers(value, 0);
#endif
}

// The lowest position among `peers` (each gave its own).
GDEDUP_HD uint32_t lowest_position(unsigned peers, uint32_t position) {
#if defined(__CUDA_ARCH__)
  return __reduce_min_sync(peers, position);
#elif defined(GDEDUP_CPU_DEVICE)
  if (warp_step == nullptr) return position;
  for (uint32_t l = 0; l < kWarpLanes; ++l) {
    const WarpNote& note = warp_step->lanes[l];
    if ((peers >> l) & 1u) position = note.position < position ? note.position : position;
  }
  return position;
#else
  (void)peers;
  return position;
#endif
}

// The OR of word q of `bits` over `peers`.
template <uint32_t N>
GDEDUP_HD uint64_t or_of_word(unsigned peers, const uint64_t (&bits)[N], uint32_t q) {
#if defined(__CUDA_ARCH__)
  const uint64_t lo = __reduce_or_sync(peers, static_cast<unsigned>(bits[q]));
  const uint64_t hi = __reduce_or_sync(peers, static_cast<unsigned>(bits[q] >> 32));
  return (hi << 32) | lo;
#elif defined(GDEDUP_CPU_DEVICE)
  if (warp_step == nullptr) return bits[q];
  uint64_t all = 0;
  for (uint32_t l = 0; l < kWarpLanes; ++l) {
    if ((peers >> l) & 1u) all |= warp_step->lanes[l].bits[q];
  }
  return all;
#else
  (void)peers;
  return bits[q];
#endif
}

// Whether this lane leads `peers`: it holds the lowest position of them.
GDEDUP_HD bool leads(unsigned peers, uint32_t position) {
  return lowest_position(peers, position) == position;
}

// Whether this thread, at `position`, leads the lanes of its warp active now
// that hold the same `value`.
GDEDUP_HD bool lowest_of_peers(uint64_t value, uint32_t position) {
  if (!meets(value, 0, position, nullptr, 0)) return false;
  return leads(match_peers(value), position);
}

// As lowest_of_peers, for a value of two words (an exact set's 84-bit key):
// the lanes that match on both.
GDEDUP_HD bool lowest_of_peers(uint64_t high, uint64_t low, uint32_t position) {
  if (!meets(high, low, position, nullptr, 0)) return false;
  return leads(match_peers(high, low), position);
}

// Warp aggregation of atomics: the lanes of a warp active now that hold the
// same `value` OR their `bits` together; returns whether this lane leads
// them, the one to make the atomics with the OR.
template <uint32_t N>
GDEDUP_HD bool or_over_peers(uint64_t value, uint32_t position, uint64_t (&bits)[N]) {
  static_assert(N <= kMaxPeerWords, "more words than a lane notes");
  if (!meets(value, 0, position, bits, N)) return false;
  const unsigned peers = match_peers(value);
  if (peers != lane_bit()) {
    uint64_t all[N];
    GDEDUP_UNROLL
    for (uint32_t q = 0; q < N; ++q) all[q] = or_of_word(peers, bits, q);
    GDEDUP_UNROLL
    for (uint32_t q = 0; q < N; ++q) bits[q] = all[q];
  }
  return leads(peers, position);
}

}  // namespace gdedup::kernels
