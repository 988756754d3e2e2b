// Small helpers shared by the tests and the fuzz targets: a seeded
// generator, key sets and the reference record split.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "gdedup/backend.h"
#include "gdedup/fingerprint.h"
#include "gdedup/layered_filter.h"
#include "gdedup/layout.h"

namespace gdedup::test {

// Layers of a growing filter on the CPU backend.
inline BackendMaker cpu_layers() {
  return [](Filter& layer) { return make_cpu_backend(layer); };
}

// The fingerprints of the keys "key-FROM" to "key-(TO-1)", with the default
// seed.
inline std::vector<uint64_t> key_fingerprints(int from, int to) {
  std::vector<uint64_t> fps;
  for (int i = from; i < to; ++i) {
    const std::string key = "key-" + std::to_string(i);
    fps.push_back(fingerprint(key.data(), key.size(), kDefaultSeed));
  }
  return fps;
}

// "512-bit k=16": a layout in test traces.
inline std::string layout_name(const Layout& l) {
  return std::to_string(l.block_bits) + "-bit k=" + std::to_string(l.k);
}

// Whether this build runs under AddressSanitizer, for tests that must
// scale down there or cannot run at all (it reserves terabytes of address
// space and slows code about ten times).
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif
#else
inline constexpr bool kAddressSanitizer = false;
#endif

// splitmix64: fast, seedable, and good enough to stand in for a hash.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  uint64_t below(uint64_t n) { return next() % n; }

 private:
  uint64_t state_;
};

inline std::vector<uint64_t> random_keys(uint64_t count, uint64_t seed) {
  Rng rng(seed);
  std::vector<uint64_t> keys(count);
  for (auto& k : keys) k = rng.next();
  return keys;
}

// `count` keys drawn from a pool of `distinct` random keys: many exact repeats.
inline std::vector<uint64_t> keys_with_duplicates(uint64_t count, uint64_t distinct,
                                                  uint64_t seed) {
  const std::vector<uint64_t> pool = random_keys(distinct, seed);
  Rng rng(seed ^ 0x5555);
  std::vector<uint64_t> keys(count);
  for (auto& k : keys) k = pool[rng.below(distinct)];
  return keys;
}

// `count` lines of `len` random letters (hard to compress), each ending '\n'.
inline std::string letter_lines(std::mt19937_64& rng, size_t count, size_t len) {
  std::string s;
  s.reserve(count * (len + 1));
  for (size_t i = 0; i < count; ++i) {
    for (size_t j = 0; j < len; ++j) s.push_back(static_cast<char>('a' + rng() % 26));
    s.push_back('\n');
  }
  return s;
}

// The record split, written the obvious way: bytes between '\n's, and a final
// unterminated line is a record.
inline std::vector<std::string> reference_split(std::string_view s, char separator = '\n') {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == separator) {
      out.emplace_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  if (start < s.size()) out.emplace_back(s.substr(start));
  return out;
}

}  // namespace gdedup::test
