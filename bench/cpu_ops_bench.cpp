// ns/key of the CPU backend's operations against a floor: a loop that only
// touches one random cache line per key with the same prefetch depth. Each
// iteration runs one batch of kBatchKeys random fingerprints; the filter is
// pre-filled with random bits at about the density of a filter at capacity,
// so every page is mapped and the caches are as cold as in real use.
//
// Axes: filter bytes (1 MiB, 64 MiB, 1 GiB), threads (1, 2), arithmetic
// (0 = scalar, 1 = SIMD). Run: build/bench/cpu_ops_bench --benchmark_min_time=0.5
#include <benchmark/benchmark.h>

#include <hwy/cache_control.h>

#include <map>
#include <memory>
#include <thread>
#include <vector>

#include "gdedup/backend.h"
#include "gdedup/filter.h"

namespace gdedup {
namespace {

constexpr uint64_t kBatchKeys = uint64_t{1} << 22;
constexpr Layout kLayout{512, 16};  // the planner's choice at 1e-4
constexpr int64_t kSizes[] = {20, 26, 30};  // log2 of filter bytes

uint64_t splitmix(uint64_t& s) {
  uint64_t z = (s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

const std::vector<uint64_t>& batch() {
  static const std::vector<uint64_t> keys = [] {
    std::vector<uint64_t> k(kBatchKeys);
    uint64_t s = 1;
    for (auto& x : k) x = splitmix(s);
    return k;
  }();
  return keys;
}

// One filter per size, kept across benchmarks: filling 1 GiB takes a while.
Filter& filter_of(int64_t log2_bytes) {
  static std::map<int64_t, std::unique_ptr<Filter>> filters;
  auto& f = filters[log2_bytes];
  if (!f) {
    const uint64_t blocks = (uint64_t{1} << log2_bytes) / (kLayout.block_bits / 8);
    f = std::make_unique<Filter>(FilterParams{blocks, kLayout, 1});
    uint64_t s = 99;
    uint32_t* w = f->words();
    // Two random words AND-ed: about 25% of bits set, about the fill of a
    // split-block filter planned at 1e-4.
    for (uint64_t i = 0; i < f->params().words(); ++i) {
      const uint64_t r = splitmix(s);
      w[i] = static_cast<uint32_t>(r) & static_cast<uint32_t>(r >> 32);
    }
  }
  return *f;
}

enum class Op { kAdd, kContains, kTestAndSet };

void BM_Op(benchmark::State& state, Op op) {
  Filter& filter = filter_of(state.range(0));
  const auto threads = static_cast<unsigned>(state.range(1));
  const CpuKernel kernel = state.range(2) ? CpuKernel::kSimd : CpuKernel::kScalar;
  auto backend = make_cpu_backend(filter, {threads, kernel});
  const auto& keys = batch();
  std::vector<uint8_t> out(keys.size());
  for (auto _ : state) {
    switch (op) {
      case Op::kAdd: backend->add(keys.data(), keys.size()); break;
      case Op::kContains: backend->contains(keys.data(), keys.size(), out.data()); break;
      case Op::kTestAndSet: backend->test_and_set(keys.data(), keys.size(), out.data()); break;
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * keys.size());
  state.counters["ns_per_key"] = benchmark::Counter(
      static_cast<double>(state.iterations() * keys.size()),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.SetLabel(backend->name());
}

// The floor: per key, compute the block and read one word of it, with the
// same number of prefetched lines in flight as the kernels; threads split the
// keys. No bit arithmetic, no writes.
void BM_Floor(benchmark::State& state) {
  Filter& filter = filter_of(state.range(0));
  const auto threads = static_cast<unsigned>(state.range(1));
  const auto& keys = batch();
  const FilterRef f = filter.ref();
  auto touch = [&](uint64_t lo, uint64_t hi, uint64_t* sink) {
    constexpr size_t kInFlight = 16;
    const uint32_t* ring[kInFlight] = {};
    uint64_t acc = 0;
    for (uint64_t i = lo; i < hi; ++i) {
      const uint32_t* b = f.block(f.block_of(keys[i]));
      __builtin_prefetch(b, 0, 3);
      const size_t slot = i & (kInFlight - 1);
      if (i - lo >= kInFlight) acc += *ring[slot];
      ring[slot] = b;
    }
    for (uint64_t i = hi - std::min<uint64_t>(hi - lo, kInFlight); i < hi; ++i) acc += *ring[i & (kInFlight - 1)];
    *sink = acc;
  };
  std::vector<uint64_t> sinks(threads);
  for (auto _ : state) {
    std::vector<std::thread> workers;
    for (unsigned t = 1; t < threads; ++t) {
      workers.emplace_back(touch, keys.size() * t / threads, keys.size() * (t + 1) / threads, &sinks[t]);
    }
    touch(0, keys.size() / threads, &sinks[0]);
    for (auto& w : workers) w.join();
    benchmark::DoNotOptimize(sinks.data());
  }
  state.SetItemsProcessed(state.iterations() * keys.size());
  state.counters["ns_per_key"] = benchmark::Counter(
      static_cast<double>(state.iterations() * keys.size()),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void OpAxes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"log2_bytes", "threads", "simd"});
  for (int64_t size : kSizes) {
    for (int64_t threads : {1, 2}) {
      for (int64_t simd : {0, 1}) b->Args({size, threads, simd});
    }
  }
  b->UseRealTime()->Unit(benchmark::kMillisecond);
}

void FloorAxes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"log2_bytes", "threads"});
  for (int64_t size : kSizes) {
    for (int64_t threads : {1, 2}) b->Args({size, threads});
  }
  b->UseRealTime()->Unit(benchmark::kMillisecond);
}

BENCHMARK(BM_Floor)->Apply(FloorAxes);
BENCHMARK_CAPTURE(BM_Op, add, Op::kAdd)->Apply(OpAxes);
BENCHMARK_CAPTURE(BM_Op, contains, Op::kContains)->Apply(OpAxes);
BENCHMARK_CAPTURE(BM_Op, test_and_set, Op::kTestAndSet)->Apply(OpAxes);

}  // namespace
}  // namespace gdedup

BENCHMARK_MAIN();
