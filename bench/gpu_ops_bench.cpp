// Keys per second of the CUDA backend's operations.
//
// gpu_device/OP/KEYS/SIZE: 2^26 fingerprints already in device memory, one
//   batch per call, answers to device memory: the kernels' rate. Targets on
//   an H200 with a 4 GiB filter: test_and_set 15, add 20, contains 30 G keys/s.
// gpu_streamed/OP/KEYS/SIZE: the same keys in pinned host memory, answers
//   copied back to pinned host memory, in batches of a quarter of the call
//   over three streams, so that batch c + 1's copy in overlaps batch c's
//   kernels: what a host pipeline gets, bounded by PCIe (9 bytes a key);
//   4 GiB only (the first size where GDEDUP_GPU_BENCH_SIZES is set), every
//   KEYS. Counters: batches (a call's), and once a benchmark, on its own,
//   copy_in_ms and copy_back_ms (the call's keys in, its answers back, one
//   copy each) and kernel_ms (the same call on device memory): a call that
//   overlaps them takes near the largest, one that does not their sum.
// KEYS: random (fresh keys every iteration, made on the device), repeats
//   (9 keys in 10 repeats: each key drawn from a pool of n / 10 random
//   fingerprints, as a stream of mostly seen records) or hot-key (15 keys in
//   16 one fingerprint, as records lacking their --key field, the rest
//   random).
// SIZE: 1, 4 and 16 GiB filters (the 64 MiB one this replaced fit in the
//   H200's 50 MB L2 nearly whole).
//
// Every iteration starts from the same filter, about 25% of bits set (a
// split-block filter at its planned capacity): it is restored by an untimed
// device-to-device copy, so test_and_set and add never fill it further. The
// fill each benchmark starts from is reported as fill_percent. Time is
// measured with CUDA events around each call (the backend's calls return
// with their work done), reported as manual time.
//
// gpu_device/test_and_insert/KEYS/exact-set: the exact set (GpuKeySet) on
//   the same number of 84-bit keys (16 bytes each) in device memory, answers
//   to device memory, into a set sized for them and empty at the start of
//   each iteration (made untimed): it must not grow (counter growths, 0).
//   Estimate (kernels/set_kernels.cu): 257 bytes of DRAM a new key (two
//   passes: the key read twice, the slot's key and position sectors read,
//   written where new), about 145 a repeat and 33 a hot key's repeat; at
//   the ~2.4 TB/s that an H200's 4.8 TB/s gives for random 32-byte sectors,
//   ~9 G new keys/s and ~16 G repeats/s (an H100: ~6.5 and ~11). Goal
//   (issue 28): at least 3 G keys/s. Never yet run on a GPU.
// gpu_streamed/test_and_insert/KEYS/exact-set: the same from pinned host
//   memory, answers back to it, in passes of a quarter of the call (the
//   set's pass_keys), with the streamed rows' counters.
// gpu_device/gather64/random/SIZE: 64-byte pieces at random positions of a
//   buffer of the first size, 16-byte loads: what random access reaches on
//   the card, against which the rows above are judged (bytes_per_second).
//
// Run: build/bench/gpu_ops_bench --benchmark_min_time=0.2
// Env: GDEDUP_GPU_BENCH_SIZES (log2 filter bytes, comma-separated; default
// 30,32,34), GDEDUP_GPU_BENCH_KEYS (log2 keys a call; default 26), to fit a
// smaller device or the CUDA stand-in. bench/gpu_check.sh runs 4 GiB and
// 2^24 keys (SIZES=32, KEYS=24). Without a usable GPU every benchmark
// is skipped with the reason.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "gdedup/backend.h"
#include "gdedup/error.h"
#include "gdedup/filter.h"
#include "gdedup/gpu.h"
#include "gdedup/key_set.h"

#if defined(GDEDUP_HAVE_CUDA)
#include <cuda_runtime_api.h>

#include "../kernels/filter_kernels.h"
#include "../kernels/set_kernels.h"
#endif

namespace gdedup {
namespace {

constexpr Layout kLayout{512, 16};  // the planner's choice at 1e-4, as cpu_ops_bench
constexpr int kStreamedSize = 32;
// The batches a streamed call is cut into, so that their copies and
// kernels overlap.
constexpr uint64_t kStreamedBatches = 4;

std::vector<int> env_list(const char* name, const char* fallback) {
  const char* text = std::getenv(name);
  std::stringstream in(text != nullptr && *text != '\0' ? text : fallback);
  std::vector<int> out;
  for (std::string item; std::getline(in, item, ',');) out.push_back(std::stoi(item));
  return out;
}

uint64_t key_count() { return uint64_t{1} << env_list("GDEDUP_GPU_BENCH_KEYS", "26").front(); }

// The batch of a streamed call.
uint64_t streamed_batch(uint64_t n) { return std::max<uint64_t>(n / kStreamedBatches, 1); }

enum class Op { kAdd, kContains, kTestAndSet };
const char* op_name(Op op) {
  return op == Op::kAdd ? "add" : op == Op::kContains ? "contains" : "test_and_set";
}

enum class Keys { kRandom, kRepeats, kHotKey };
const char* keys_name(Keys k) {
  return k == Keys::kRandom ? "random" : k == Keys::kRepeats ? "repeats" : "hot-key";
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

// A pair of events on the default stream that time one call, into the
// iteration's manual time (time) or as a number (measure); false or a
// negative number, with the error skipped, when CUDA fails.
class CallTimer {
 public:
  explicit CallTimer(benchmark::State& state) : state_(state) {
    ok_ = cuda_ok(state, cudaEventCreate(&start_), "cudaEventCreate") &&
          cuda_ok(state, cudaEventCreate(&stop_), "cudaEventCreate");
  }
  ~CallTimer() {
    if (start_ != nullptr) cudaEventDestroy(start_);
    if (stop_ != nullptr) cudaEventDestroy(stop_);
  }
  CallTimer(const CallTimer&) = delete;
  CallTimer& operator=(const CallTimer&) = delete;
  bool ok() const { return ok_; }

  // Milliseconds.
  template <class Call>
  double measure(Call&& call) {
    cudaEventRecord(start_, nullptr);
    call();
    cudaEventRecord(stop_, nullptr);
    if (!cuda_ok(state_, cudaEventSynchronize(stop_), "cudaEventSynchronize")) return -1;
    float ms = 0;
    cudaEventElapsedTime(&ms, start_, stop_);
    return ms;
  }

  template <class Call>
  bool time(Call&& call) {
    const double ms = measure(call);
    if (ms < 0) return false;
    state_.SetIterationTime(ms / 1e3);
    return true;
  }

 private:
  benchmark::State& state_;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  bool ok_ = false;
};

// About 25% of bits set: two random words AND-ed. Threads, because a
// 16 GiB filter takes seconds on one core.
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

// One filter, its backend and a device copy of its prefilled words at a
// time, kept while consecutive benchmarks use the same size and batch:
// building a 16 GiB one takes seconds.
struct Setup {
  int log2_bytes = -1;
  uint64_t batch = 0;
  std::unique_ptr<Filter> filter;
  std::unique_ptr<Backend> backend;
  GpuBackend* gpu = nullptr;
  uint32_t* prefilled = nullptr;  // device memory

  void release() {
    if (prefilled != nullptr) cudaFree(prefilled);
    prefilled = nullptr;
    gpu = nullptr;
    backend.reset();
    filter.reset();
  }
};

Setup& setup_for(int log2_bytes, uint64_t batch) {
  static Setup s;
  if (s.log2_bytes != log2_bytes || s.batch != batch || !s.backend) {
    s.release();
    s.log2_bytes = log2_bytes;
    s.batch = batch;
    const uint64_t blocks = (uint64_t{1} << log2_bytes) / (kLayout.block_bits / 8);
    s.filter = std::make_unique<Filter>(FilterParams{blocks, kLayout, 1});
    prefill(*s.filter);
    s.backend = make_gpu_backend(*s.filter, GpuOptions{0, batch});
    s.gpu = dynamic_cast<GpuBackend*>(s.backend.get());
    const uint64_t bytes = s.filter->params().bytes();
    if (cudaMalloc(reinterpret_cast<void**>(&s.prefilled), bytes) != cudaSuccess ||
        cudaMemcpy(s.prefilled, s.gpu->device_words(), bytes, cudaMemcpyDeviceToDevice) !=
            cudaSuccess ||
        cudaDeviceSynchronize() != cudaSuccess) {
      cudaGetLastError();
      s.release();
      throw Error("no device memory for a second copy of the " + size_name(log2_bytes) +
                  " filter, which restores it before every iteration");
    }
  }
  return s;
}

// Device buffers for keys and answers, made once; the repeats and hot-key
// keys are made on the host once.
struct DeviceKeys {
  uint64_t* keys = nullptr;
  uint8_t* answers = nullptr;
  uint64_t* pinned_keys = nullptr;
  uint8_t* pinned_answers = nullptr;
  std::vector<uint64_t> repeats;
  std::vector<uint64_t> hot;
  cuda::LaunchShape shape{};
};

uint64_t splitmix64(uint64_t x) {
  uint64_t z = x + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// The calls' keys on the device; null, the benchmark skipped with the
// reason, where no GPU is usable or they cannot be made.
DeviceKeys* device_keys(benchmark::State& state, uint64_t n) {
  std::string why;
  if (!gpu_available(&why)) {
    state.SkipWithError(why.c_str());
    return nullptr;
  }
  static DeviceKeys d;
  static bool made = false;
  if (!made) {
    if (!cuda_ok(state, cudaMalloc(reinterpret_cast<void**>(&d.keys), n * 8), "cudaMalloc") ||
        !cuda_ok(state, cudaMalloc(reinterpret_cast<void**>(&d.answers), n), "cudaMalloc") ||
        !cuda_ok(state, cudaMallocHost(reinterpret_cast<void**>(&d.pinned_keys), n * 8),
                 "cudaMallocHost") ||
        !cuda_ok(state, cudaMallocHost(reinterpret_cast<void**>(&d.pinned_answers), n),
                 "cudaMallocHost")) {
      return nullptr;
    }
    d.repeats.resize(n);
    d.hot.resize(n);
    const uint64_t pool = std::max<uint64_t>(n / 10, 1);
    for (uint64_t i = 0; i < n; ++i) {
      d.repeats[i] = splitmix64(0x7e9ea7000000ull + splitmix64(i) % pool);
      d.hot[i] = (i & 15) != 0 ? 0x0123456789abcdefull : splitmix64(0x4ea7ull + i);
    }
    d.shape = cuda::launch_shape(0);
    made = true;
  }
  return &d;
}

// A streamed row's counters, measured once, apart: one copy of the call's
// keys in and one of its answers back, and the call on device memory
// (on_device); false, the error skipped, when CUDA fails.
template <class OnDevice>
bool note_parts(benchmark::State& state, CallTimer& timer, void* device_keys,
                const void* host_keys, uint64_t key_bytes, void* host_answers,
                const void* device_answers, uint64_t n, OnDevice&& on_device) {
  const double in = timer.measure([&] {
    cudaMemcpyAsync(device_keys, host_keys, key_bytes, cudaMemcpyHostToDevice, nullptr);
  });
  const double back = timer.measure([&] {
    cudaMemcpyAsync(host_answers, device_answers, n, cudaMemcpyDeviceToHost, nullptr);
  });
  const double kernel = timer.measure(on_device);
  if (in < 0 || back < 0 || kernel < 0) return false;
  state.counters["copy_in_ms"] = in;
  state.counters["copy_back_ms"] = back;
  state.counters["kernel_ms"] = kernel;
  return true;
}

void BM_Op(benchmark::State& state, int log2_bytes, Op op, Keys kind, bool streamed) {
  try {
    const uint64_t n = key_count();
    DeviceKeys* d = device_keys(state, n);
    if (d == nullptr) return;
    Setup& s = setup_for(log2_bytes, streamed ? streamed_batch(n) : n);
    const uint64_t filter_bytes = s.filter->params().bytes();
    CallTimer timer(state);
    if (!timer.ok()) return;
    uint64_t seed = 0x5eed0000ull + static_cast<uint64_t>(log2_bytes) * 1000 +
                    static_cast<uint64_t>(op) * 100 + (streamed ? 10 : 0);
    const uint64_t* keys = streamed ? d->pinned_keys : d->keys;
    uint8_t* answers = streamed ? d->pinned_answers : d->answers;
    const auto restore = [&] {
      return cuda_ok(state, cudaMemcpy(s.gpu->device_words(), s.prefilled, filter_bytes,
                                       cudaMemcpyDeviceToDevice),
                     "cudaMemcpy");
    };
    const auto call = [&](const uint64_t* k, uint8_t* a) {
      switch (op) {
        case Op::kAdd: s.backend->add(k, n); break;
        case Op::kContains: s.backend->contains(k, n, a); break;
        case Op::kTestAndSet: s.backend->test_and_set(k, n, a); break;
      }
    };
    double fill = 0;
    bool parts_noted = !streamed;
    for (auto _ : state) {
      // Untimed: the prefilled filter back, and this iteration's keys.
      if (!restore()) break;
      if (kind == Keys::kRandom) {
        cuda::launch_random_keys(d->keys, n, seed++ * n, d->shape, nullptr);
      } else if (!cuda_ok(state, cudaMemcpy(d->keys, (kind == Keys::kRepeats ? d->repeats
                                                                              : d->hot)
                                                             .data(),
                                            n * 8, cudaMemcpyHostToDevice),
                          "cudaMemcpy")) {
        break;
      }
      if (streamed &&
          !cuda_ok(state, cudaMemcpy(d->pinned_keys, d->keys, n * 8, cudaMemcpyDeviceToHost),
                   "cudaMemcpy")) {
        break;
      }
      if (!cuda_ok(state, cudaDeviceSynchronize(), "cudaDeviceSynchronize")) break;
      if (fill == 0) {
        fill = 100.0 * static_cast<double>(s.gpu->device_set_bits()) /
               static_cast<double>(filter_bytes * 8);
      }
      if (!parts_noted) {
        parts_noted = true;
        if (!note_parts(state, timer, d->keys, d->pinned_keys, n * 8, d->pinned_answers,
                        d->answers, n, [&] { call(d->keys, d->answers); }) ||
            !restore()) {
          break;
        }
      }
      if (!timer.time([&] { call(keys, answers); })) break;
    }
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(n));
    state.counters["fill_percent"] = fill;
    if (streamed) {
      state.counters["batches"] =
          static_cast<double>((n + s.gpu->batch_keys() - 1) / s.gpu->batch_keys());
    }
    state.SetLabel(s.backend->name());
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

// The exact set's keys: 84 bits made from the filter benchmarks' 64-bit
// ones (repeats and hot key) or made on the device (random).
Key84 key84_from(uint64_t x) { return key84_of(x, splitmix64(x)); }

// The exact set's keys and their answers, on the device and pinned on the
// host, made once.
struct SetKeys {
  Key84* keys = nullptr;
  Key84* pinned_keys = nullptr;
  uint8_t* pinned_answers = nullptr;
};

SetKeys* set_keys(benchmark::State& state, uint64_t n) {
  static SetKeys k;
  if (k.keys == nullptr &&
      (!cuda_ok(state, cudaMalloc(reinterpret_cast<void**>(&k.keys), n * sizeof(Key84)),
                "cudaMalloc") ||
       !cuda_ok(state,
                cudaMallocHost(reinterpret_cast<void**>(&k.pinned_keys), n * sizeof(Key84)),
                "cudaMallocHost") ||
       !cuda_ok(state, cudaMallocHost(reinterpret_cast<void**>(&k.pinned_answers), n),
                "cudaMallocHost"))) {
    return nullptr;
  }
  return &k;
}

void BM_SetInsert(benchmark::State& state, Keys kind, bool streamed) {
  try {
    const uint64_t n = key_count();
    DeviceKeys* d = device_keys(state, n);
    if (d == nullptr) return;
    SetKeys* k = set_keys(state, n);
    if (k == nullptr) return;
    std::vector<Key84> host;
    if (kind != Keys::kRandom) {
      const std::vector<uint64_t>& from = kind == Keys::kRepeats ? d->repeats : d->hot;
      host.resize(n);
      for (uint64_t i = 0; i < n; ++i) host[i] = key84_from(from[i]);
    }
    CallTimer timer(state);
    if (!timer.ok()) return;
    GpuKeySetOptions options;
    if (streamed) options.pass_keys = streamed_batch(n);
    const Key84* keys = streamed ? k->pinned_keys : k->keys;
    uint8_t* answers = streamed ? k->pinned_answers : d->answers;
    uint64_t seed = 0x5e7000ull + (streamed ? 1000 : 0);
    uint64_t growths = 0;
    bool parts_noted = !streamed;
    for (auto _ : state) {
      // Untimed: this iteration's keys, and an empty set sized for them.
      if (kind == Keys::kRandom) {
        cuda::launch_random_keys84(k->keys, n, seed++ * n, d->shape, nullptr);
      } else if (!cuda_ok(state, cudaMemcpy(k->keys, host.data(), n * sizeof(Key84),
                                            cudaMemcpyHostToDevice),
                          "cudaMemcpy")) {
        break;
      }
      if (streamed && !cuda_ok(state, cudaMemcpy(k->pinned_keys, k->keys, n * sizeof(Key84),
                                                 cudaMemcpyDeviceToHost),
                               "cudaMemcpy")) {
        break;
      }
      if (!cuda_ok(state, cudaDeviceSynchronize(), "cudaDeviceSynchronize")) break;
      if (!parts_noted) {
        parts_noted = true;
        GpuKeySet apart(n, options);
        if (!note_parts(state, timer, k->keys, k->pinned_keys, n * sizeof(Key84),
                        k->pinned_answers, d->answers, n,
                        [&] { apart.test_and_insert(k->keys, n, d->answers); })) {
          break;
        }
      }
      GpuKeySet set(n, options);
      if (!timer.time([&] { set.test_and_insert(keys, n, answers); })) break;
      growths = std::max(growths, set.growths());
      state.counters["set_MiB"] = static_cast<double>(set.bytes()) / (1 << 20);
    }
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(n));
    state.counters["growths"] = static_cast<double>(growths);
    if (streamed) {
      state.counters["batches"] =
          static_cast<double>((n + options.pass_keys - 1) / options.pass_keys);
    }
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

// Random 64-byte gathers over the filter's words of the first size (set up
// as the streamed rows that follow use it).
void BM_Gather(benchmark::State& state, int log2_bytes) {
  try {
    const uint64_t n = key_count();
    DeviceKeys* d = device_keys(state, n);
    if (d == nullptr) return;
    Setup& s = setup_for(log2_bytes, streamed_batch(n));
    unsigned long long* total = nullptr;
    if (!cuda_ok(state, cudaMalloc(reinterpret_cast<void**>(&total), sizeof *total),
                 "cudaMalloc")) {
      return;
    }
    CallTimer timer(state);
    uint64_t seed = 0x6a7e0000ull;
    const uint64_t pieces = s.filter->params().bytes() / 64;
    for (auto _ : state) {
      if (!timer.ok() || !timer.time([&] {
            cuda::launch_gather64(s.gpu->device_words(), pieces, n, seed++ * n, total, d->shape,
                                  nullptr);
          })) {
        break;
      }
    }
    cudaFree(total);
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(n));
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                            static_cast<int64_t>(n * 64));
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

#else

void skip_without_gpu(benchmark::State& state) {
  std::string why;
  gpu_available(&why);
  state.SkipWithError(why.c_str());
}

void BM_SetInsert(benchmark::State& state, Keys, bool) { skip_without_gpu(state); }
void BM_Op(benchmark::State& state, int, Op, Keys, bool) { skip_without_gpu(state); }
void BM_Gather(benchmark::State& state, int) { skip_without_gpu(state); }

#endif

void register_one(const char* path, int size, Op op, Keys keys, bool streamed) {
  benchmark::RegisterBenchmark((std::string(path) + "/" + op_name(op) + "/" + keys_name(keys) +
                                "/" + size_name(size))
                                   .c_str(),
                               [=](benchmark::State& st) { BM_Op(st, size, op, keys, streamed); })
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
}

void register_all() {
  const Op ops[] = {Op::kAdd, Op::kContains, Op::kTestAndSet};
  const Keys kinds[] = {Keys::kRandom, Keys::kRepeats, Keys::kHotKey};
  // Size-major, so each filter is built once.
  const std::vector<int> sizes = env_list("GDEDUP_GPU_BENCH_SIZES", "30,32,34");
  for (int size : sizes) {
    for (Op op : ops) {
      for (Keys keys : kinds) register_one("gpu_device", size, op, keys, false);
    }
  }
  const int first_size =
      std::getenv("GDEDUP_GPU_BENCH_SIZES") != nullptr ? sizes.front() : kStreamedSize;
  benchmark::RegisterBenchmark(
      ("gpu_device/gather64/random/" + size_name(first_size)).c_str(),
      [=](benchmark::State& st) { BM_Gather(st, first_size); })
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
  for (Op op : ops) {
    for (Keys keys : kinds) register_one("gpu_streamed", first_size, op, keys, true);
  }
  for (const bool streamed : {false, true}) {
    for (Keys keys : kinds) {
      benchmark::RegisterBenchmark((std::string(streamed ? "gpu_streamed" : "gpu_device") +
                                    "/test_and_insert/" + keys_name(keys) + "/exact-set")
                                       .c_str(),
                                   [=](benchmark::State& st) { BM_SetInsert(st, keys, streamed); })
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond);
    }
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
