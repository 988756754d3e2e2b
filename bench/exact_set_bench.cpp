// Exact mode's set (gdedup/key_set.h): N random distinct keys through
// test_and_insert in batches of 2^18 (the pipeline's), into a set that
// starts empty and grows (BM_Growing) and into one sized for N from the
// start (BM_Presized), on 1 or 2 threads; N absent keys through contains
// (BM_AbsentLookups); and growth's pauses, timed call by call in batches of
// 4096 (BM_GrowthPause: the longest call against the median one, in the
// calling thread's CPU time, and the longest in wall time). Each
// iteration starts from an empty set. Counters: bytes a key, load, growths,
// the longest call. Rates are of wall time; the CPU column is all threads'.
//
// Axes: log10 of N (6, 7; 8 where the machine has the memory: about 3 GiB
// with the keys), threads.
// Run: build/bench/exact_set_bench --benchmark_filter='/[67]/' --benchmark_repetitions=3
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include <time.h>

#include "gdedup/key_set.h"

namespace gdedup {
namespace {

constexpr uint64_t kBatch = uint64_t{1} << 18;

uint64_t keys_of(const benchmark::State& state) {
  return static_cast<uint64_t>(std::pow(10.0, static_cast<double>(state.range(0))));
}

// The same keys for every benchmark of one N: made once (1e8 take seconds).
const std::vector<Key84>& random_keys(uint64_t n, uint64_t seed) {
  static std::vector<Key84> keys[2];
  std::vector<Key84>& cached = keys[seed - 1];
  if (cached.size() == n) return cached;
  cached.assign(n, 0);
  std::mt19937_64 rng(seed);
  const Key84 mask = (Key84{1} << kKeyBits) - 1;
  for (Key84& k : cached) k = ((static_cast<Key84>(rng()) << 64) | rng()) & mask;
  return cached;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// This thread's CPU seconds: a call's own work, without the time another
// process had the core (on a shared machine, far longer than any growth).
double thread_seconds() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

void insert_all(benchmark::State& state, bool presized) {
  const uint64_t n = keys_of(state);
  const std::vector<Key84>& keys = random_keys(n, 1);
  std::vector<uint8_t> answers(kBatch);
  const KeySetOptions options{static_cast<unsigned>(state.range(1)), 0};
  std::unique_ptr<KeySet> set;
  double longest = 0;
  for (auto _ : state) {
    state.PauseTiming();
    set.reset();
    set = std::make_unique<KeySet>(presized ? n : 0, options);
    state.ResumeTiming();
    for (uint64_t at = 0; at < n; at += kBatch) {
      const auto start = std::chrono::steady_clock::now();
      set->test_and_insert(keys.data() + at, std::min(kBatch, n - at), answers.data());
      longest = std::max(longest, seconds_since(start));
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * n));
  state.counters["bytes_a_key"] = static_cast<double>(set->bytes()) / static_cast<double>(n);
  state.counters["load"] = set->load();
  state.counters["growths"] = static_cast<double>(set->growths());
  state.counters["longest_call_ms"] = longest * 1e3;
}

void BM_Growing(benchmark::State& state) { insert_all(state, false); }
void BM_Presized(benchmark::State& state) { insert_all(state, true); }

void BM_AbsentLookups(benchmark::State& state) {
  const uint64_t n = keys_of(state);
  const std::vector<Key84>& keys = random_keys(n, 1);
  const std::vector<Key84>& absent = random_keys(n, 2);
  KeySet set(n, KeySetOptions{static_cast<unsigned>(state.range(1)), 0});
  set.insert(keys.data(), n);
  std::vector<uint8_t> answers(kBatch);
  for (auto _ : state) {
    for (uint64_t at = 0; at < n; at += kBatch) {
      set.contains(absent.data() + at, std::min(kBatch, n - at), answers.data());
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * n));
}

void BM_GrowthPause(benchmark::State& state) {
  constexpr uint64_t kSmall = 4096;
  const uint64_t n = keys_of(state);
  const std::vector<Key84>& keys = random_keys(n, 1);
  std::vector<uint8_t> answers(kSmall);
  std::vector<double> calls;  // CPU seconds
  calls.reserve(n / kSmall + 1);
  double longest_wall = 0;
  for (auto _ : state) {
    state.PauseTiming();
    KeySet set(0, KeySetOptions{static_cast<unsigned>(state.range(1)), 0});
    calls.clear();
    state.ResumeTiming();
    for (uint64_t at = 0; at < n; at += kSmall) {
      const auto start = std::chrono::steady_clock::now();
      const double cpu = thread_seconds();
      set.test_and_insert(keys.data() + at, std::min(kSmall, n - at), answers.data());
      calls.push_back(thread_seconds() - cpu);
      longest_wall = std::max(longest_wall, seconds_since(start));
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * n));
  std::sort(calls.begin(), calls.end());
  state.counters["longest_call_cpu_ms"] = calls.back() * 1e3;
  state.counters["median_call_cpu_ms"] = calls[calls.size() / 2] * 1e3;
  state.counters["longest_call_wall_ms"] = longest_wall * 1e3;
}

void axes(benchmark::internal::Benchmark* b) {
  for (const int64_t log_n : {6, 7, 8}) {
    for (const int64_t threads : {1, 2}) b->Args({log_n, threads});
  }
  // Wall time for the rates (threads), and the CPU time of all threads.
  b->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime()->MeasureProcessCPUTime();
}

BENCHMARK(BM_Growing)->Apply(axes);
BENCHMARK(BM_Presized)->Apply(axes);
BENCHMARK(BM_AbsentLookups)->Apply(axes);
// Calls of 4096 keys run on the calling thread: one thread only.
BENCHMARK(BM_GrowthPause)
    ->Args({6, 1})
    ->Args({7, 1})
    ->Args({8, 1})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->UseRealTime();

}  // namespace
}  // namespace gdedup

BENCHMARK_MAIN();
