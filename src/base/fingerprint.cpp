#include "gdedup/fingerprint.h"

// Inlined so the compiler sees the short-key paths: most URLs are 30-120 bytes.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace gdedup {

uint64_t fingerprint(const void* key, size_t length, uint64_t seed) {
  return XXH3_64bits_withSeed(key, length, seed);
}

}  // namespace gdedup
