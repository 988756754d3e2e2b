// How large a table the device set takes for its keys (set_slots.h gives
// the layout), for the host side (src/cuda/gpu_key_set.cpp). Plain C++ so
// that the tests run it without a device.
#pragma once

#include <cmath>
#include <cstdint>

#include "set_slots.h"

namespace gdedup::cuda {

// The most keys a table holds over its slots.
constexpr double kMostSetLoad = 0.5;
// Keys expected past a table's longest displacement, at most, when it is
// chosen: one set in twenty would grow once on the way to its planned keys.
constexpr double kMostKeysPast = 0.05;

// The share of keys that linear probing at `load` places `d` or more slots
// past their home, at most: (load e^(1 - load))^d. A simulation of
// sequential linear probing with random homes (which salted homes are) in
// 2^22 and 2^24 slots measured 3 to 500 times less (the more, the larger d)
// at loads from 0.03 to 1/2 and d from 1 to 40. At load 1/2 the tail falls
// by about 0.82 a slot: 5e-6 of the keys lie 31 or more slots out, where
// the (0.6 load)^d this replaced had 6e-17, so that 2^24 keys in 2^25
// slots put some 70 past the 30 slots a word holds there and the set grew.
inline double share_past(double load, uint64_t d) {
  return std::pow(load * std::exp(1.0 - load), static_cast<double>(d));
}

// log2 of the slots of the smallest table that holds `keys` at most
// kMostSetLoad full with under kMostKeysPast of them expected past its
// longest displacement (2 slots at 2^22, 6 at 2^23: the words' limit), so
// that a set made for `keys` takes them without growing. The limit makes
// small tables sparse: 2^22 slots for up to about 20,000 keys, 2^23 for
// 340,000, 2^24 for 2.1 million, 2^25 for 8.7 million (load 0.26), 2^26
// for 26 million (0.39); from 2^27 on, the load alone decides.
inline uint32_t table_log2_for(uint64_t keys) {
  uint32_t log2 = kernels::kMinSetLog2;
  for (; log2 < kernels::kMaxSetLog2; ++log2) {
    const double load = static_cast<double>(keys) / std::ldexp(1.0, static_cast<int>(log2));
    const double past =
        static_cast<double>(keys) * share_past(load, kernels::max_displacement(log2) + 1);
    if (load <= kMostSetLoad && past < kMostKeysPast) break;
  }
  return log2;
}

}  // namespace gdedup::cuda
