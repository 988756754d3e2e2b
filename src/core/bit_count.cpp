#include "core/bit_count.h"

#include <mutex>
#include <vector>

#include "core/thread_pool.h"
#include "gdedup/error.h"

namespace gdedup::detail {
namespace {

// Not under ThreadSanitizer: GCC instruments the clones' ifunc resolver,
// which the dynamic loader runs before the sanitizer's runtime is set up,
// and every program then crashes at startup.
#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__)
__attribute__((target_clones("popcnt", "default")))
#endif
uint64_t popcount_words(const uint64_t* p, uint64_t n) {
  uint64_t total = 0;
  for (uint64_t i = 0; i < n; ++i) total += static_cast<uint64_t>(__builtin_popcountll(p[i]));
  return total;
}

}  // namespace

uint64_t count_set_bits(const uint64_t* words, uint64_t n, unsigned parts) {
  static std::mutex busy;
  static ThreadPool pool("the bit count");
  std::unique_lock<std::mutex> lock(busy, std::try_to_lock);
  if (parts <= 1 || !lock.owns_lock()) return popcount_words(words, n);
  std::vector<uint64_t> counts(parts);
  try {
    pool.run(parts, [&](unsigned t) {
      const uint64_t lo = n * t / parts, hi = n * (t + 1) / parts;
      counts[t] = popcount_words(words + lo, hi - lo);
    }, nullptr);
  } catch (const Error&) {
    // No memory for another thread's stack: the pool ran nothing.
    return popcount_words(words, n);
  }
  uint64_t total = 0;
  for (uint64_t c : counts) total += c;
  return total;
}

}  // namespace gdedup::detail
