// The filter kernels. Memory-bound: per key one 8-byte fingerprint read and
// one random 32- or 64-byte block (one or two sectors), so throughput is set
// by random sector traffic, not arithmetic.
//
// add:      one thread per key; reads the block with 16-byte loads and ORs in
//           only the 64-bit lanes that still miss bits (atomicOr), so a
//           saturated filter is only read.
// contains: one thread per key; 16-byte loads through the read-only cache.
// test_and_set: bucket each key (kernels/block_ops.h), sort (bucket,
//           position) pairs with CUB's stable radix sort on the significant
//           bits only, then one thread per run of equal buckets walks the run
//           in input order with plain loads and stores. Costs about four
//           radix passes over 8-byte pairs plus a random gather of each
//           fingerprint and a random byte store of each answer on top of the
//           block traffic.
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <string>
#include <type_traits>

#include "block_ops.h"
#include "cuda_check.h"
#include "filter_kernels.h"

namespace gdedup::cuda {
namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ uint64_t first_index() {
  return static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

__device__ __forceinline__ uint64_t grid_stride() {
  return static_cast<uint64_t>(gridDim.x) * blockDim.x;
}

template <uint32_t BW, uint32_t BPW>
__global__ void __launch_bounds__(kThreads)
    add_kernel(FilterRef f, const uint64_t* __restrict__ fingerprints, uint64_t n) {
  for (uint64_t i = first_index(); i < n; i += grid_stride()) {
    const uint64_t fp = fingerprints[i];
    uint32_t* block = f.words + block_index(fp, f.num_blocks) * BW;
    uint32_t w[BW];
    // Plain loads: other threads OR into the filter meanwhile. A stale word
    // only costs an atomic that was not needed.
    kernels::load_block<BW>(block, w);
    uint64_t missing[BW / 2];
    kernels::block_missing<BW, BPW>(w, fp, missing);
    unsigned long long* lanes = reinterpret_cast<unsigned long long*>(block);
#pragma unroll
    for (uint32_t q = 0; q < BW / 2; ++q) {
      if (missing[q] != 0) atomicOr(lanes + q, static_cast<unsigned long long>(missing[q]));
    }
  }
}

template <uint32_t BW, uint32_t BPW>
__global__ void __launch_bounds__(kThreads)
    contains_kernel(FilterRef f, const uint64_t* __restrict__ fingerprints, uint64_t n,
                    uint8_t* __restrict__ present) {
  for (uint64_t i = first_index(); i < n; i += grid_stride()) {
    const uint64_t fp = __ldg(fingerprints + i);
    uint32_t w[BW];
    kernels::load_block_readonly<BW>(f.words + block_index(fp, f.num_blocks) * BW, w);
    present[i] = kernels::block_contains<BW, BPW>(w, fp) ? 1 : 0;
  }
}

__global__ void __launch_bounds__(kThreads)
    bucket_kernel(const uint64_t* __restrict__ fingerprints, uint64_t n, uint64_t num_blocks,
                  uint32_t shift, uint32_t* __restrict__ buckets,
                  uint32_t* __restrict__ positions) {
  for (uint64_t i = first_index(); i < n; i += grid_stride()) {
    buckets[i] = kernels::bucket_of(__ldg(fingerprints + i), num_blocks, shift);
    positions[i] = static_cast<uint32_t>(i);
  }
}

template <uint32_t BW, uint32_t BPW>
__global__ void __launch_bounds__(kThreads)
    walk_kernel(FilterRef f, const uint64_t* __restrict__ fingerprints,
                const uint32_t* __restrict__ buckets, const uint32_t* __restrict__ positions,
                uint64_t n, uint8_t* __restrict__ was_present, unsigned long long* fresh) {
  uint64_t mine = 0;
  for (uint64_t t = first_index(); t < n; t += grid_stride()) {
    kernels::BlockCursor<BW, BPW> cursor(f.words, f.num_blocks);
    mine += kernels::walk_run(t, n, buckets, positions, fingerprints, was_present, cursor);
  }
  // A batch holds at most 2^30 keys, so a warp's sum fits 32 bits.
  const unsigned warp_total = __reduce_add_sync(0xffffffffu, static_cast<unsigned>(mine));
  if ((threadIdx.x & 31) == 0 && warp_total != 0) {
    atomicAdd(fresh, static_cast<unsigned long long>(warp_total));
  }
}

__global__ void __launch_bounds__(kThreads)
    popcount_kernel(const uint4* __restrict__ words, uint64_t n, unsigned long long* total) {
  unsigned long long mine = 0;
  for (uint64_t i = first_index(); i < n; i += grid_stride()) {
    const uint4 v = __ldg(words + i);
    mine += __popc(v.x) + __popc(v.y) + __popc(v.z) + __popc(v.w);
  }
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) {
    mine += __shfl_down_sync(0xffffffffu, mine, offset);
  }
  if ((threadIdx.x & 31) == 0 && mine != 0) atomicAdd(total, mine);
}

__global__ void __launch_bounds__(kThreads)
    random_keys_kernel(uint64_t* __restrict__ keys, uint64_t n, uint64_t seed) {
  for (uint64_t i = first_index(); i < n; i += grid_stride()) {
    uint64_t z = seed + (i + 1) * 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    keys[i] = z ^ (z >> 31);
  }
}

// Calls fn(BW, BPW) with the geometry as compile-time constants, so each
// layout gets its own unrolled kernel.
template <class Fn>
void dispatch_layout(const FilterRef& f, Fn&& fn) {
  using W8 = std::integral_constant<uint32_t, 8>;
  using W16 = std::integral_constant<uint32_t, 16>;
  using P1 = std::integral_constant<uint32_t, 1>;
  using P2 = std::integral_constant<uint32_t, 2>;
  if (f.block_words == 8 && f.bits_per_word == 1) return fn(W8{}, P1{});
  if (f.block_words == 8 && f.bits_per_word == 2) return fn(W8{}, P2{});
  if (f.block_words == 16 && f.bits_per_word == 1) return fn(W16{}, P1{});
  if (f.block_words == 16 && f.bits_per_word == 2) return fn(W16{}, P2{});
  throw Error("the CUDA kernels have no layout with " + std::to_string(f.block_words) +
              " words per block and " + std::to_string(f.bits_per_word) +
              " bits per word; supported are 8 or 16 words with 1 or 2 bits.");
}

// One full wave of `kernel`: a grid-stride loop over more blocks than fit
// at once would only add a tail wave.
template <class Kernel>
unsigned grid_for(Kernel kernel, uint64_t count, LaunchShape shape) {
  int per_sm = 0;
  GDEDUP_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, 0));
  const uint64_t cap = static_cast<uint64_t>(std::max(per_sm, 1)) *
                       static_cast<uint64_t>(std::max(shape.multiprocessors, 1));
  const uint64_t needed = (count + kThreads - 1) / kThreads;
  return static_cast<unsigned>(needed < cap ? needed : cap);
}

}  // namespace

LaunchShape launch_shape(int device) {
  int sms = 0;
  GDEDUP_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return LaunchShape{sms};
}

cudaError_t probe_kernels() {
  cudaFuncAttributes attributes{};
  const cudaError_t status = cudaFuncGetAttributes(&attributes, popcount_kernel);
  if (status != cudaSuccess) cudaGetLastError();
  return status;
}

size_t sort_scratch_bytes(uint64_t keys) {
  if (keys > kMaxBatchKeys) {
    throw Error("a test_and_set batch holds at most " + std::to_string(kMaxBatchKeys) +
                " keys; got " + std::to_string(keys) + ".");
  }
  cub::DoubleBuffer<uint32_t> buckets(nullptr, nullptr);
  cub::DoubleBuffer<uint32_t> positions(nullptr, nullptr);
  size_t bytes = 0;
  GDEDUP_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, buckets, positions,
                                                    static_cast<int>(keys), 0, 32));
  return bytes;
}

void launch_add(const FilterRef& filter, const uint64_t* fingerprints, uint64_t count,
                LaunchShape shape, cudaStream_t stream) {
  if (count == 0) return;
  dispatch_layout(filter, [&](auto bw, auto bpw) {
    const auto kernel = add_kernel<decltype(bw)::value, decltype(bpw)::value>;
    kernel<<<grid_for(kernel, count, shape), kThreads, 0, stream>>>(filter, fingerprints, count);
  });
  GDEDUP_CUDA_CHECK(cudaGetLastError());
}

void launch_contains(const FilterRef& filter, const uint64_t* fingerprints, uint64_t count,
                     uint8_t* present, LaunchShape shape, cudaStream_t stream) {
  if (count == 0) return;
  dispatch_layout(filter, [&](auto bw, auto bpw) {
    const auto kernel = contains_kernel<decltype(bw)::value, decltype(bpw)::value>;
    kernel<<<grid_for(kernel, count, shape), kThreads, 0, stream>>>(filter, fingerprints, count,
                                                                     present);
  });
  GDEDUP_CUDA_CHECK(cudaGetLastError());
}

void launch_test_and_set(const FilterRef& filter, const uint64_t* fingerprints,
                         uint64_t count, uint8_t* was_present,
                         unsigned long long* fresh, const SortWorkspace& workspace,
                         LaunchShape shape, cudaStream_t stream) {
  if (count == 0) return;
  if (count > workspace.capacity) {
    throw Error("a test_and_set batch of " + std::to_string(count) +
                " keys exceeds the sort workspace of " + std::to_string(workspace.capacity) +
                " keys.");
  }
  const kernels::SortSpan span = kernels::sort_span(filter.num_blocks, count);
  bucket_kernel<<<grid_for(bucket_kernel, count, shape), kThreads, 0, stream>>>(
      fingerprints, count, filter.num_blocks, span.shift, workspace.buckets[0],
      workspace.positions[0]);
  GDEDUP_CUDA_CHECK(cudaGetLastError());

  cub::DoubleBuffer<uint32_t> buckets(workspace.buckets[0], workspace.buckets[1]);
  cub::DoubleBuffer<uint32_t> positions(workspace.positions[0], workspace.positions[1]);
  size_t needed = 0;
  GDEDUP_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, needed, buckets, positions,
                                                    static_cast<int>(count), 0,
                                                    static_cast<int>(span.bits), stream));
  if (needed > workspace.scratch_bytes) {
    throw Error("the sort needs " + std::to_string(needed) + " bytes of scratch space but " +
                std::to_string(workspace.scratch_bytes) + " were set aside.");
  }
  size_t scratch_bytes = workspace.scratch_bytes;
  GDEDUP_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(workspace.scratch, scratch_bytes, buckets,
                                                    positions, static_cast<int>(count), 0,
                                                    static_cast<int>(span.bits), stream));

  dispatch_layout(filter, [&](auto bw, auto bpw) {
    const auto kernel = walk_kernel<decltype(bw)::value, decltype(bpw)::value>;
    kernel<<<grid_for(kernel, count, shape), kThreads, 0, stream>>>(
        filter, fingerprints, buckets.Current(), positions.Current(), count, was_present, fresh);
  });
  GDEDUP_CUDA_CHECK(cudaGetLastError());
}

void launch_count_set_bits(const FilterRef& filter, unsigned long long* total,
                           LaunchShape shape, cudaStream_t stream) {
  // Blocks are 8 or 16 words, so the array is a whole number of uint4.
  const uint64_t vectors = filter.num_blocks * filter.block_words / 4;
  if (vectors == 0) return;
  popcount_kernel<<<grid_for(popcount_kernel, vectors, shape), kThreads, 0, stream>>>(
      reinterpret_cast<const uint4*>(filter.words), vectors, total);
  GDEDUP_CUDA_CHECK(cudaGetLastError());
}

void launch_random_keys(uint64_t* keys, uint64_t count, uint64_t seed, LaunchShape shape,
                        cudaStream_t stream) {
  if (count == 0) return;
  random_keys_kernel<<<grid_for(random_keys_kernel, count, shape), kThreads, 0, stream>>>(
      keys, count, seed);
  GDEDUP_CUDA_CHECK(cudaGetLastError());
}

}  // namespace gdedup::cuda
