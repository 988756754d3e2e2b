// Keys per second of the CUDA backend's operations.
//
// gpu_device/OP/SIZE: 2^26 fingerprints already in device memory, one batch
//   per call, answers to device memory: the kernels' rate. Targets on an H200
//   with a 4 GiB filter: test_and_set 15, add 20, contains 30 G keys/s.
// gpu_streamed/OP/SIZE: the same keys in pinned host memory, answers copied
//   back to pinned host memory, automatic batches over three streams: what a
//   host pipeline gets, bounded by PCIe (9 bytes a key).
//
// Each iteration uses fresh random keys (made on the device, outside the
// timed region), so test_and_set and add meet mostly new keys, into a filter
// pre-filled to about 25% set bits, the fill of a split-block filter at its
// planned capacity. Time is measured with CUDA events around each call (the
// backend's calls return with their work done), reported as manual time.
//
// Run: build/bench/gpu_ops_bench --benchmark_min_time=0.2
// Without a usable GPU every benchmark is skipped with the reason.
#include <benchmark/benchmark.h>

#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gdedup/backend.h"
#include "gdedup/filter.h"
#include "gdedup/gpu.h"

#if defined(GDEDUP_HAVE_CUDA)
#include <cuda_runtime_api.h>

#include "../kernels/filter_kernels.h"
#endif

namespace gdedup {
namespace {

constexpr Layout kLayout{512, 16};  // the planner's choice at 1e-4, as cpu_ops_bench
constexpr uint64_t kKeys = uint64_t{1} << 26;
constexpr int kSizes[] = {26, 30, 33};  // log2 of filter bytes: 64 MiB, 1 GiB, 8 GiB
constexpr int kStreamedSize = 30;

enum class Op { kAdd, kContains, kTestAndSet };
const char* op_name(Op op) {
  return op == Op::kAdd ? "add" : op == Op::kContains ? "contains" : "test_and_set";
}

std::string size_name(int log2_bytes) {
  return log2_bytes >= 30 ? std::to_string(1 << (log2_bytes - 30)) + "GiB"
                          : std::to_string(1 << (log2_bytes - 20)) + "MiB";
}

#if defined(GDEDUP_HAVE_CUDA)

bool cuda_ok(benchmark::State& state, cudaError_t status, const char* what) {
  if (status == cudaSuccess) return true;
  state.SkipWithError((std::string(what) + ": " + cudaGetErrorString(status)).c_str());
  return false;
}

// About 25% of bits set: two random words AND-ed. Threads, because an
// 8 GiB filter takes seconds on one core.
void prefill(Filter& filter) {
  uint32_t* words = filter.words();
  const uint64_t total = filter.params().words();
  const unsigned parts = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < parts; ++t) {
    threads.emplace_back([=] {
      const uint64_t lo = total * t / parts, hi = total * (t + 1) / parts;
      uint64_t s = 0x1234567ull + t;
      for (uint64_t i = lo; i < hi; ++i) {
        uint64_t z = (s += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        words[i] = static_cast<uint32_t>(z) & static_cast<uint32_t>(z >> 32);
      }
    });
  }
  for (auto& th : threads) th.join();
}

// One filter and backend at a time, kept while consecutive benchmarks use the
// same size and batch: building an 8 GiB one takes seconds.
struct Setup {
  int log2_bytes = -1;
  uint64_t batch = 0;
  std::unique_ptr<Filter> filter;
  std::unique_ptr<Backend> backend;
};

Setup& setup_for(int log2_bytes, uint64_t batch) {
  static Setup s;
  if (s.log2_bytes != log2_bytes || s.batch != batch || !s.backend) {
    s.backend.reset();
    s.filter.reset();
    s.log2_bytes = log2_bytes;
    s.batch = batch;
    const uint64_t blocks = (uint64_t{1} << log2_bytes) / (kLayout.block_bits / 8);
    s.filter = std::make_unique<Filter>(FilterParams{blocks, kLayout, 1});
    prefill(*s.filter);
    s.backend = make_gpu_backend(*s.filter, GpuOptions{0, batch});
  }
  return s;
}

// Device buffers for keys and answers, made once.
struct DeviceKeys {
  uint64_t* keys = nullptr;
  uint8_t* answers = nullptr;
  uint64_t* pinned_keys = nullptr;
  uint8_t* pinned_answers = nullptr;
  cuda::LaunchShape shape{};
};

DeviceKeys* device_keys(benchmark::State& state) {
  static DeviceKeys d;
  static bool made = false;
  if (!made) {
    if (!cuda_ok(state, cudaMalloc(reinterpret_cast<void**>(&d.keys), kKeys * 8), "cudaMalloc") ||
        !cuda_ok(state, cudaMalloc(reinterpret_cast<void**>(&d.answers), kKeys), "cudaMalloc") ||
        !cuda_ok(state, cudaMallocHost(reinterpret_cast<void**>(&d.pinned_keys), kKeys * 8),
                 "cudaMallocHost") ||
        !cuda_ok(state, cudaMallocHost(reinterpret_cast<void**>(&d.pinned_answers), kKeys),
                 "cudaMallocHost")) {
      return nullptr;
    }
    d.shape = cuda::launch_shape(0);
    made = true;
  }
  return &d;
}

void BM_Op(benchmark::State& state, int log2_bytes, Op op, bool streamed) {
  std::string why;
  if (!gpu_available(&why)) {
    state.SkipWithError(why.c_str());
    return;
  }
  try {
    DeviceKeys* d = device_keys(state);
    if (d == nullptr) return;
    Setup& s = setup_for(log2_bytes, streamed ? 0 : kKeys);
    cudaEvent_t start, stop;
    if (!cuda_ok(state, cudaEventCreate(&start), "cudaEventCreate") ||
        !cuda_ok(state, cudaEventCreate(&stop), "cudaEventCreate")) {
      return;
    }
    uint64_t seed = 0x5eed0000ull + static_cast<uint64_t>(log2_bytes) * 1000 +
                    static_cast<uint64_t>(op) * 100 + (streamed ? 10 : 0);
    const uint64_t* keys = streamed ? d->pinned_keys : d->keys;
    uint8_t* answers = streamed ? d->pinned_answers : d->answers;
    for (auto _ : state) {
      cuda::launch_random_keys(d->keys, kKeys, seed++ * kKeys, d->shape, nullptr);
      if (streamed) {
        if (!cuda_ok(state, cudaMemcpy(d->pinned_keys, d->keys, kKeys * 8, cudaMemcpyDeviceToHost),
                     "cudaMemcpy")) {
          break;
        }
      }
      if (!cuda_ok(state, cudaDeviceSynchronize(), "cudaDeviceSynchronize")) break;
      cudaEventRecord(start, nullptr);
      switch (op) {
        case Op::kAdd: s.backend->add(keys, kKeys); break;
        case Op::kContains: s.backend->contains(keys, kKeys, answers); break;
        case Op::kTestAndSet: s.backend->test_and_set(keys, kKeys, answers); break;
      }
      cudaEventRecord(stop, nullptr);
      if (!cuda_ok(state, cudaEventSynchronize(stop), "cudaEventSynchronize")) break;
      float ms = 0;
      cudaEventElapsedTime(&ms, start, stop);
      state.SetIterationTime(ms / 1e3);
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) *
                            static_cast<int64_t>(kKeys));
    state.SetLabel(s.backend->name());
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

#else

void BM_Op(benchmark::State& state, int, Op, bool) {
  std::string why;
  gpu_available(&why);
  state.SkipWithError(why.c_str());
}

#endif

void register_all() {
  const Op ops[] = {Op::kAdd, Op::kContains, Op::kTestAndSet};
  // Size-major, so each filter is built once.
  for (int size : kSizes) {
    for (Op op : ops) {
      benchmark::RegisterBenchmark(
          (std::string("gpu_device/") + op_name(op) + "/" + size_name(size)).c_str(),
          [=](benchmark::State& st) { BM_Op(st, size, op, false); })
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond);
    }
  }
  for (Op op : ops) {
    benchmark::RegisterBenchmark(
        (std::string("gpu_streamed/") + op_name(op) + "/" + size_name(kStreamedSize)).c_str(),
        [=](benchmark::State& st) { BM_Op(st, kStreamedSize, op, true); })
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
  }
}

}  // namespace
}  // namespace gdedup

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  gdedup::register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
