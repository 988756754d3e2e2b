// Deduplicates a few keys through the installed library and checks the
// answer against exact dedup; exits non-zero on any difference.
#include <cstdint>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "gdedup/backend.h"
#include "gdedup/filter.h"
#include "gdedup/fingerprint.h"
#include "gdedup/gpu.h"
#include "gdedup/planner.h"

int main() {
  const std::vector<std::string> keys = {"a", "b", "a", "c", "b", "d"};
  gdedup::Filter filter = gdedup::Filter::from_plan(gdedup::plan_for_capacity(1000, 1e-6));
  auto backend = gdedup::make_cpu_backend(filter);

  std::vector<uint64_t> fingerprints;
  for (const std::string& key : keys)
    fingerprints.push_back(gdedup::fingerprint(key.data(), key.size(), gdedup::kDefaultSeed));
  std::vector<uint8_t> was_present(keys.size());
  backend->test_and_set(fingerprints.data(), fingerprints.size(), was_present.data());

  std::set<std::string> seen;
  for (size_t i = 0; i < keys.size(); ++i) {
    const bool expected = !seen.insert(keys[i]).second;
    if (was_present[i] != expected) {
      std::fprintf(stderr, "consumer: key %zu (\"%s\") was_present=%d, exact dedup says %d\n",
                   i, keys[i].c_str(), was_present[i], expected);
      return 1;
    }
  }
  // Links the GPU part of the package whichever it is (CUDA or the stand-in
  // that says it was not built).
  std::string why_not;
  const bool gpu = gdedup::gpu_available(&why_not);
  std::printf("consumer: %zu keys as exact dedup; GPU backend %s\n", keys.size(),
              gpu ? "available" : why_not.c_str());
  return 0;
}
