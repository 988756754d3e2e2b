// Fingerprints: XXH3-64 of the key bytes with the filter's seed.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gdedup {

// The seed of new filters unless the caller picks another; it is stored in
// the filter file, so filters built with different seeds never get mixed.
constexpr uint64_t kDefaultSeed = 0x6764656475700001ull;

uint64_t fingerprint(const void* key, size_t length, uint64_t seed);

}  // namespace gdedup
