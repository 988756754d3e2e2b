// Set bits of a bit array, counted in slices on threads of one pool for the
// whole process: counting is rare (the end of a job, gdedup info), so the
// pool's helpers are started at the first split count and then wait parked
// instead of being started again for every count.
#pragma once

#include <cstdint>

namespace gdedup::detail {

// The set bits of words[0, n), counted in `parts` slices: the first on the
// caller, the others on the pool's helpers. While another count holds the
// pool, or when the system refuses a thread, the caller counts alone.
uint64_t count_set_bits(const uint64_t* words, uint64_t n, unsigned parts);

}  // namespace gdedup::detail
