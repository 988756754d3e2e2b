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
};

// The settings in force (the environment's, until set() is called).
Settings current();
// Applies to streams and allocations made afterwards.
void set(const Settings& settings);

// Device bytes allocated now.
uint64_t device_bytes_in_use();

}  // namespace cuda_standin
