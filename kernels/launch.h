// How a kernel's per-key functor is launched, on either device system:
// for_each_index(f, n, ...) calls f(i) for every i below n; sum_into also
// adds what the calls return into a device counter. On CUDA grid-stride
// kernels, one full wave each; on the CPU device a host function on the
// stream (tests/cuda_standin/README.md), its threads one at a time or
// several at once. Shared by the filter and set kernels, each of which
// includes this once, in its own translation unit.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <type_traits>

#if !defined(__CUDACC__)
#include <atomic>
#include <thread>
#include <vector>

#include "cuda_standin.h"
#endif

#include "block_ops.h"
#include "cuda_check.h"
#include "filter_kernels.h"
#include "warp_ops.h"

namespace gdedup::cuda {

#if defined(__CUDACC__)
// ---------------------------------------------------------------------------
// CUDA: grid-stride kernels over the functors, one full wave each.

constexpr int kThreads = 256;

__device__ __forceinline__ uint64_t first_index() {
  return static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

__device__ __forceinline__ uint64_t grid_stride() {
  return static_cast<uint64_t>(gridDim.x) * blockDim.x;
}

template <class F>
__global__ void __launch_bounds__(kThreads) for_each_kernel(F f, uint64_t n) {
  for (uint64_t i = first_index(); i < n; i += grid_stride()) f(i);
}

// Sums f(i) into *total: per thread, then per warp, then one atomic per warp.
// The sums of test_and_set (at most 2^30 keys a batch) and of the popcount
// (at most 32 bits a word, 2^32 words a thread) fit.
template <class F>
__global__ void __launch_bounds__(kThreads)
    sum_kernel(F f, uint64_t n, unsigned long long* total) {
  unsigned long long mine = 0;
  for (uint64_t i = first_index(); i < n; i += grid_stride()) mine += f(i);
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) {
    mine += __shfl_down_sync(0xffffffffu, mine, offset);
  }
  if ((threadIdx.x & 31) == 0 && mine != 0) atomicAdd(total, mine);
}

// A grid-stride loop over more blocks than fit at once would only add a
// tail wave.
template <class Kernel>
unsigned grid_for(Kernel kernel, uint64_t count, LaunchShape shape) {
  int per_sm = 0;
  GDEDUP_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, 0));
  const uint64_t cap = static_cast<uint64_t>(std::max(per_sm, 1)) *
                       static_cast<uint64_t>(std::max(shape.multiprocessors, 1));
  const uint64_t needed = (count + kThreads - 1) / kThreads;
  return static_cast<unsigned>(needed < cap ? needed : cap);
}

template <class F>
void for_each_index(F f, uint64_t n, LaunchShape shape, cudaStream_t stream) {
  const auto kernel = for_each_kernel<F>;
  kernel<<<grid_for(kernel, n, shape), kThreads, 0, stream>>>(f, n);
  GDEDUP_CUDA_CHECK(cudaGetLastError());
}

template <class F>
void sum_into(F f, uint64_t n, unsigned long long* total, LaunchShape shape,
              cudaStream_t stream) {
  const auto kernel = sum_kernel<F>;
  kernel<<<grid_for(kernel, n, shape), kThreads, 0, stream>>>(f, n, total);
  GDEDUP_CUDA_CHECK(cudaGetLastError());
}

#else
// ---------------------------------------------------------------------------
// The CPU device: each launch is a host function on the stream.

template <class Work>
void enqueue(cudaStream_t stream, Work work) {
  auto job = std::make_unique<Work>(std::move(work));
  GDEDUP_CUDA_CHECK(cudaLaunchHostFunc(
      stream, [](void* p) { std::unique_ptr<Work>(static_cast<Work*>(p))->operator()(); },
      job.get()));
  job.release();
}

inline std::atomic<uint64_t> longest_thread_keys{0};

// Thread i of a launch: f(n - 1 - i), noting how many keys it worked
// through. One at a time the threads run from the last index down, so that
// a kernel relying on a lower thread's writes being done (no GPU promises
// that; the keys of a block that test_and_set answers directly, say) gives
// wrong answers here instead of sequential ones.
template <class F>
struct CountedThread {
  F f;
  uint64_t n;
  auto operator()(uint64_t t) const {
    const uint64_t i = n - 1 - t;
    kernels::cpu_device_steps = 0;
    struct Note {
      ~Note() {
        uint64_t seen = longest_thread_keys.load();
        while (kernels::cpu_device_steps > seen &&
               !longest_thread_keys.compare_exchange_weak(seen, kernels::cpu_device_steps)) {
        }
      }
    } note;
    return f(i);
  }
};

inline std::atomic<uint64_t> concurrent_launches{0};

// One warp of a concurrent launch (kernels/warp_ops.h): lane l is GPU thread
// g = kWarpLanes * warp + l of a grid of `grid` threads and takes positions
// g, g + grid, ... as a grid-stride loop does, calling thread(n - 1 - i)
// for position i. Each lane has a pace drawn for the launch: it joins a
// step with chance 1, 1/2 or 1/4 (when none does, every lane with positions
// left joins), each lane at its own pass, so that the lanes drift passes
// apart and meet their peers there, as a GPU's lanes may. Returns the sum
// of what the calls return.
template <class Thread>
uint64_t run_warp(uint64_t warp, uint64_t grid, uint64_t n, const Thread& thread,
                  kernels::Interleaving& random) {
  using kernels::kWarpLanes;
  kernels::WarpStep step{};
  uint64_t next[kWarpLanes];
  uint32_t pace[kWarpLanes];  // log2 of the steps a lane takes to join one
  for (uint32_t l = 0; l < kWarpLanes; ++l) {
    next[l] = warp * kWarpLanes + l;
    pace[l] = static_cast<uint32_t>(kernels::next_random(random) % 3);
  }
  uint64_t sum = 0;
  kernels::warp_step = &step;
  for (;;) {
    uint32_t left = 0;
    for (uint32_t l = 0; l < kWarpLanes; ++l) left |= next[l] < n ? 1u << l : 0u;
    if (left == 0) break;
    const uint64_t draw = kernels::next_random(random);
    uint32_t active = 0;
    for (uint32_t l = 0; l < kWarpLanes; ++l) {
      const bool joins = ((draw >> (2 * l)) & ((1u << pace[l]) - 1)) == 0;
      active |= joins ? 1u << l : 0u;
    }
    active &= left;
    if (active == 0) active = left;
    for (kernels::WarpNote& note : step.lanes) note.noted = false;
    // Round one: each lane runs to where it meets its peers, or to its end.
    step.gathering = true;
    for (uint32_t l = 0; l < kWarpLanes; ++l) {
      if (((active >> l) & 1u) == 0) continue;
      kernels::warp_lane = l;
      const uint64_t ran = thread(n - 1 - next[l]);
      if (!step.lanes[l].noted) sum += ran;
    }
    // Round two: the lanes that met run with their peers' notes.
    step.gathering = false;
    for (uint32_t l = 0; l < kWarpLanes; ++l) {
      if (((active >> l) & 1u) == 0) continue;
      if (step.lanes[l].noted) {
        kernels::warp_lane = l;
        sum += thread(n - 1 - next[l]);
      }
      next[l] += grid;
    }
  }
  kernels::warp_step = nullptr;
  return sum;
}

// Runs thread(t) for every t below n: one at a time, or with the stand-in's
// launch_threads (cuda_standin.h) on that many OS threads at once, as warps
// (run_warp) of a grid of two warps an OS thread, each OS thread taking every
// launch_threads-th warp and yielding at random between its steps
// (kernels::between_steps), so that the threads of one launch race as a
// GPU's do: compare-and-swap retries, contended atomics, lanes of a warp
// passes apart. Returns the sum of what the calls return.
template <class Thread>
uint64_t run_launch(uint64_t n, const Thread& thread) {
  const cuda_standin::Settings settings = cuda_standin::current();
  const uint64_t workers = std::min<uint64_t>(settings.launch_threads, n);
  if (workers <= 1) {
    uint64_t sum = 0;
    for (uint64_t t = 0; t < n; ++t) sum += thread(t);
    return sum;
  }
  const uint64_t seed = settings.seed * 0x9e3779b97f4a7c15ull + ++concurrent_launches;
  const uint64_t warps = 2 * workers;
  const uint64_t grid = warps * kernels::kWarpLanes;
  std::atomic<uint64_t> sum{0};
  std::vector<std::thread> pool;
  for (uint64_t w = 0; w < workers; ++w) {
    pool.emplace_back([&, w] {
      kernels::Interleaving mine{kernels::splitmix64(seed, w) | 1};
      kernels::interleaving = &mine;
      uint64_t part = 0;
      for (uint64_t warp = w; warp < warps; warp += workers) {
        part += run_warp(warp, grid, n, thread, mine);
      }
      kernels::interleaving = nullptr;
      sum += part;
    });
  }
  for (std::thread& p : pool) p.join();
  return sum;
}

// The functor's result as a number to sum (0 for a void one).
template <class F>
uint64_t call_counted(const CountedThread<F>& thread, uint64_t t) {
  if constexpr (std::is_void_v<decltype(thread(t))>) {
    thread(t);
    return 0;
  } else {
    return thread(t);
  }
}

template <class F>
void for_each_index(F f, uint64_t n, LaunchShape, cudaStream_t stream) {
  enqueue(stream, [f, n] {
    const CountedThread<F> thread{f, n};
    run_launch(n, [&](uint64_t t) { return call_counted(thread, t); });
  });
}

template <class F>
void sum_into(F f, uint64_t n, unsigned long long* total, LaunchShape, cudaStream_t stream) {
  enqueue(stream, [f, n, total] {
    const CountedThread<F> thread{f, n};
    *total += run_launch(n, [&](uint64_t t) { return call_counted(thread, t); });
  });
}

#endif

}  // namespace gdedup::cuda
