// Controls of the CUDA runtime stand-in (tests/cuda_standin/README.md), for
// tests. Each setting also has an environment variable, read once at the
// first runtime call, so that a child process (the gdedup-standin command)
// can be steered too.
#pragma once

#include <cstdint>

namespace cuda_standin {

struct Settings {
  // Seeds the delays of every stream created from now on.
  // GDEDUP_STANDIN_SEED.
  uint64_t seed = 1;
  // Before each operation a stream sleeps a random 0..max_delay_us
  // microseconds (half of the time not at all).
  // GDEDUP_STANDIN_DELAY_US.
  uint32_t max_delay_us = 50;
  // What cudaMemGetInfo reports as total; cudaMalloc fails with
  // cudaErrorMemoryAllocation beyond it. GDEDUP_STANDIN_DEVICE_BYTES.
  uint64_t device_bytes = uint64_t{512} << 20;
  // cudaMallocHost fails with cudaErrorMemoryAllocation when the pinned
  // memory in use would exceed this, as where the system's limit on locked
  // memory is reached. GDEDUP_STANDIN_PINNED_BYTES.
  uint64_t pinned_bytes = UINT64_MAX;
  // Device numbers 0 .. devices - 1 are accepted, all one emulated device
  // (the ranks of an MPI job on one machine each take their own number).
  // GDEDUP_STANDIN_DEVICES.
  uint64_t devices = 1;
  // 0 or 1: the CPU device runs a launch's threads one at a time, from the
  // last index down. More: on that many OS threads at once, as warps of 32
  // lanes whose lanes drift passes of the grid-stride loop apart
  // (kernels/launch.h, run_warp), with random yields between a thread's
  // steps on shared memory (kernels/block_ops.h, between_steps), so that
  // compare-and-swap retries, contended atomics and warp aggregation over
  // lanes of different passes happen.
  // GDEDUP_STANDIN_LAUNCH_THREADS.
  uint32_t launch_threads = 0;
};

// The settings in force (the environment's, until set() is called).
Settings current();
// Applies to streams and allocations made afterwards.
void set(const Settings& settings);

// Device bytes allocated now.
uint64_t device_bytes_in_use();
// Pinned host bytes (cudaMallocHost) allocated now.
uint64_t pinned_bytes_in_use();

// How many cudaMemcpyAsync calls so far read from or wrote to pageable host
// memory: each stages the source at the call or blocks the caller until the
// copy to the host is done, so none belongs on a hot path.
uint64_t pageable_async_copies();

// How many cudaMemcpy and cudaMemcpyAsync calls so far read from or wrote
// to the pinned allocation that holds `host` (0 when it is not pinned
// memory): a caller's pinned buffer that a backend copies through its own
// staging buffers instead is never touched by a copy.
uint64_t copies_touching(const void* host);

}  // namespace cuda_standin
