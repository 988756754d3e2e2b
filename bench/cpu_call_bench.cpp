// The fixed cost of one CPU backend call split over threads: test_and_set of
// small batches (64 to 16,384 keys) on a 1 MiB filter that stays in cache,
// with every batch split over 2 threads (min_keys_per_thread = 1), so the
// time is the split, the hand-over to the threads and the join, not memory.
//
// Axis: keys per call; the time is per call.
// Run: build/bench/cpu_call_bench --benchmark_repetitions=7 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "gdedup/backend.h"
#include "gdedup/filter.h"

namespace gdedup {
namespace {

constexpr Layout kLayout{512, 16};
constexpr uint64_t kFilterBytes = uint64_t{1} << 20;
constexpr unsigned kThreads = 2;

void BM_TestAndSetCall(benchmark::State& state) {
  const auto keys = static_cast<uint64_t>(state.range(0));
  Filter filter(FilterParams{kFilterBytes / (kLayout.block_bits / 8), kLayout, 1});
  CpuOptions options;
  options.threads = kThreads;
  options.min_keys_per_thread = 1;
  auto backend = make_cpu_backend(filter, options);
  std::vector<uint64_t> fingerprints(keys);
  uint64_t x = 0x9e3779b97f4a7c15ull;
  for (auto& f : fingerprints) f = x = x * 6364136223846793005ull + 1442695040888963407ull;
  std::vector<uint8_t> was_present(keys);
  for (auto _ : state) {
    backend->test_and_set(fingerprints.data(), keys, was_present.data());
    benchmark::DoNotOptimize(was_present.data());
  }
}
BENCHMARK(BM_TestAndSetCall)->RangeMultiplier(16)->Range(64, 16384)->UseRealTime();

}  // namespace
}  // namespace gdedup

BENCHMARK_MAIN();
