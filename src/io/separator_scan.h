// The record splitter's inner loop: where the separators of a buffer are.
// memchr per record costs a call and its set-up for every 60-byte URL (about
// 0.3 ns a byte here, the largest step of a plain-text worker); comparing
// whole vectors and walking the bits of their masks finds every separator
// of a buffer in one pass, with the best SIMD target the CPU has
// (Highway's runtime dispatch, as the CPU kernels use).
#pragma once

#include <cstddef>
#include <cstdint>

namespace gdedup::io {

// The largest buffer find_separators() takes: its offsets are 32-bit.
inline constexpr size_t kMaxSeparatorScan = size_t{1} << 31;

// Writes the offsets in `data` of the first `max` bytes equal to `separator`
// among its first `size` (at most kMaxSeparatorScan), in order, to
// `offsets`; returns how many it found (fewer than `max`: all of them).
size_t find_separators(const char* data, size_t size, char separator, uint32_t* offsets,
                       size_t max);

// The SIMD target find_separators() runs with, as Highway names it.
const char* separator_scan_target();

}  // namespace gdedup::io
