// The cost of growing: N random distinct fingerprints through test_and_set
// of a growing filter (the default rule: first layer 524,288 keys, the CLI's
// start for a pipe, growth factor 2, or the same rule with a factor of 4)
// and of one filter planned for exactly N, at 1e-4, on the CPU backend with
// one thread, in batches of 2^18 (the pipeline's). Each iteration starts
// from empty filters. Counters: filter bytes and layers.
//
// Axes: log10 of N (6, 7; 8 where the machine has the time and memory);
// for BM_Growing, then the growth factor.
// Run: build/bench/growth_bench --benchmark_filter='/[67]/' --benchmark_repetitions=3
#include <benchmark/benchmark.h>

#include <cmath>
#include <vector>

#include "gdedup/backend.h"
#include "gdedup/layered_filter.h"
#include "../tests/test_util.h"

namespace gdedup {
namespace {

constexpr uint64_t kBatch = uint64_t{1} << 18;
constexpr double kFpr = 1e-4;

uint64_t keys_of(const benchmark::State& state) {
  return static_cast<uint64_t>(std::pow(10.0, static_cast<double>(state.range(0))));
}

// Runs `op` over the keys in batches; the keys are made outside the timing.
template <class Op>
void over_batches(benchmark::State& state, Op op) {
  const uint64_t n = keys_of(state);
  const std::vector<uint64_t> keys = test::random_keys(n, 1);
  std::vector<uint8_t> answers(kBatch);
  for (auto _ : state) {
    state.PauseTiming();
    op.reset();
    state.ResumeTiming();
    for (uint64_t at = 0; at < n; at += kBatch) {
      op.run(keys.data() + at, std::min(kBatch, n - at), answers.data());
    }
  }
  state.counters["bytes"] = static_cast<double>(op.bytes());
  state.counters["layers"] = static_cast<double>(op.layers());
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * n));
}

BackendMaker one_thread() {
  return [](Filter& layer) { return make_cpu_backend(layer, CpuOptions{1}); };
}

struct Growing {
  uint32_t growth;
  std::unique_ptr<LayeredFilter> filter;
  void reset() {
    filter.reset();
    GrowthRule rule;
    rule.target_fpr = kFpr;
    rule.growth = growth;
    filter = std::make_unique<LayeredFilter>(rule, kDefaultSeed, one_thread());
  }
  void run(const uint64_t* k, uint64_t n, uint8_t* a) { filter->test_and_set(k, n, a); }
  uint64_t bytes() const { return filter->bytes(); }
  uint64_t layers() const { return filter->layer_count(); }
};

struct RightSized {
  uint64_t capacity;
  std::unique_ptr<Filter> filter;
  std::unique_ptr<Backend> backend;
  void reset() {
    backend.reset();
    filter = std::make_unique<Filter>(Filter::from_plan(plan_for_capacity(capacity, kFpr)));
    backend = make_cpu_backend(*filter, CpuOptions{1});
  }
  void run(const uint64_t* k, uint64_t n, uint8_t* a) { backend->test_and_set(k, n, a); }
  uint64_t bytes() const { return filter->params().bytes(); }
  uint64_t layers() const { return 1; }
};

void BM_Growing(benchmark::State& state) {
  over_batches(state, Growing{static_cast<uint32_t>(state.range(1)), nullptr});
}
void BM_RightSized(benchmark::State& state) {
  over_batches(state, RightSized{keys_of(state), nullptr, nullptr});
}

BENCHMARK(BM_Growing)
    ->ArgsProduct({{6, 7, 8}, {2, 4}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_RightSized)->DenseRange(6, 8)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace gdedup

BENCHMARK_MAIN();
