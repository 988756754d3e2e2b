// The exact set (src/core/exact_set.h) on one thread: N random distinct keys
// through test_and_insert, in batches of 2^18 (the pipeline's), into a set
// that starts at the smallest table and grows (BM_Growing), and into one
// sized for N from the start (BM_Presized); then N absent keys through
// contains (BM_AbsentLookups, on the presized set). Each iteration starts
// from an empty set. Counters: bytes a key, load, growths.
//
// Axes: log10 of N (6, 7; 8 where the machine has the memory: about 2 GiB).
// Run: build/bench/exact_set_bench --benchmark_filter='/[67]$' --benchmark_repetitions=3
#include <benchmark/benchmark.h>

#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "core/exact_set.h"

namespace gdedup {
namespace {

constexpr uint64_t kBatch = uint64_t{1} << 18;

uint64_t keys_of(const benchmark::State& state) {
  return static_cast<uint64_t>(std::pow(10.0, static_cast<double>(state.range(0))));
}

std::vector<Key84> random_keys(uint64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Key84> keys(n);
  const Key84 mask = (Key84{1} << kKeyBits) - 1;
  for (Key84& k : keys) k = ((static_cast<Key84>(rng()) << 64) | rng()) & mask;
  return keys;
}

void insert_all(benchmark::State& state, bool presized) {
  const uint64_t n = keys_of(state);
  const std::vector<Key84> keys = random_keys(n, 1);
  std::vector<uint8_t> answers(kBatch);
  std::unique_ptr<ExactSet> set;
  for (auto _ : state) {
    state.PauseTiming();
    set.reset();
    set = std::make_unique<ExactSet>(presized ? n : 0);
    state.ResumeTiming();
    for (uint64_t at = 0; at < n; at += kBatch) {
      const uint64_t count = std::min(kBatch, n - at);
      set->test_and_insert(keys.data() + at, count, answers.data());
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * n));
  state.counters["bytes_a_key"] = static_cast<double>(set->bytes()) / static_cast<double>(n);
  state.counters["load"] = set->load();
  state.counters["growths"] = static_cast<double>(set->growths());
}

void BM_Growing(benchmark::State& state) { insert_all(state, false); }
void BM_Presized(benchmark::State& state) { insert_all(state, true); }

void BM_AbsentLookups(benchmark::State& state) {
  const uint64_t n = keys_of(state);
  const std::vector<Key84> keys = random_keys(n, 1);
  const std::vector<Key84> absent = random_keys(n, 2);
  ExactSet set(n);
  std::vector<uint8_t> answers(kBatch);
  for (uint64_t at = 0; at < n; at += kBatch) {
    set.test_and_insert(keys.data() + at, std::min(kBatch, n - at), answers.data());
  }
  for (auto _ : state) {
    for (uint64_t at = 0; at < n; at += kBatch) {
      set.contains(absent.data() + at, std::min(kBatch, n - at), answers.data());
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * n));
}

BENCHMARK(BM_Growing)->DenseRange(6, 8)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Presized)->DenseRange(6, 8)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AbsentLookups)->DenseRange(6, 8)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace gdedup

BENCHMARK_MAIN();
