// Device memory, pinned host memory, events, streams and devices as the
// CUDA backend's host code uses them (the Bloom backend, gpu_backend.cpp,
// and the exact set, gpu_key_set.cpp): owners that free what they hold, and
// where a caller's buffer lives.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

#include "cuda_check.h"
#include "gdedup/error.h"
#include "gdedup/gpu.h"

namespace gdedup::cuda {

// Thrown by device_malloc when the device is out of memory, so the
// constructor can say how much the filter needed.
class OutOfDeviceMemory : public Error {
 public:
  using Error::Error;
};

inline void* device_malloc(size_t bytes) {
  void* p = nullptr;
  const cudaError_t status = cudaMalloc(&p, bytes);
  if (status == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    throw OutOfDeviceMemory("cudaMalloc of " + std::to_string(bytes) + " bytes failed.");
  }
  GDEDUP_CUDA_CHECK(status);
  return p;
}

template <class T>
class DeviceArray {
 public:
  DeviceArray() = default;
  explicit DeviceArray(uint64_t count)
      : p_(static_cast<T*>(device_malloc(std::max<uint64_t>(count, 1) * sizeof(T)))) {}
  DeviceArray(DeviceArray&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  DeviceArray& operator=(DeviceArray&& o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }
  ~DeviceArray() {
    if (p_ != nullptr) cudaFree(p_);
  }
  T* get() const { return p_; }

 private:
  T* p_ = nullptr;
};

inline void free_pinned(void* p) noexcept { cudaFreeHost(p); }

// Page-locked host memory, or null when the system has none to give (it is
// locked in RAM, so limits such as RLIMIT_MEMLOCK or a container's memory
// cap refuse it long before the heap runs out).
inline void* try_pinned(uint64_t bytes) {
  void* p = nullptr;
  if (cudaMallocHost(&p, std::max<uint64_t>(bytes, 1)) == cudaSuccess) return p;
  cudaGetLastError();
  return nullptr;
}

template <class T>
class PinnedArray {
 public:
  PinnedArray() = default;
  explicit PinnedArray(uint64_t count) {
    void* p = nullptr;
    GDEDUP_CUDA_CHECK(cudaMallocHost(&p, std::max<uint64_t>(count, 1) * sizeof(T)));
    p_ = static_cast<T*>(p);
  }
  // Empty (get() null) when no pinned memory can be had.
  static PinnedArray<T> try_allocate(uint64_t count) {
    PinnedArray<T> a;
    a.p_ = static_cast<T*>(try_pinned(count * sizeof(T)));
    return a;
  }
  PinnedArray(PinnedArray&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  PinnedArray& operator=(PinnedArray&& o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }
  ~PinnedArray() {
    if (p_ != nullptr) cudaFreeHost(p_);
  }
  T* get() const { return p_; }

 private:
  T* p_ = nullptr;
};

// Pinned staging for a pageable caller's keys and answers, made on first
// use; ensure() is false when no pinned memory can be had (and is not tried
// again). Copies then go to and from the caller's pageable memory directly:
// the runtime stages those itself and returns from a copy back to the host
// only once it is done, so they overlap the kernels less, but the answers
// are the same.
template <class Key>
class PinnedStaging {
 public:
  bool ensure(uint64_t capacity) {
    if (keys_.get() == nullptr && !refused_) {
      keys_ = PinnedArray<Key>::try_allocate(capacity);
      answers_ = PinnedArray<uint8_t>::try_allocate(capacity);
      refused_ = keys_.get() == nullptr || answers_.get() == nullptr;
      if (refused_) {
        keys_ = {};
        answers_ = {};
      }
    }
    return !refused_;
  }
  Key* keys() const { return keys_.get(); }
  uint8_t* answers() const { return answers_.get(); }

 private:
  PinnedArray<Key> keys_;
  PinnedArray<uint8_t> answers_;
  bool refused_ = false;
};

class Event {
 public:
  Event() { GDEDUP_CUDA_CHECK(cudaEventCreateWithFlags(&e_, cudaEventDisableTiming)); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  ~Event() { cudaEventDestroy(e_); }
  cudaEvent_t get() const { return e_; }

 private:
  cudaEvent_t e_ = nullptr;
};

class Stream {
 public:
  Stream() { GDEDUP_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream() { cudaStreamDestroy(s_); }
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

// Where a caller's buffer lives, as far as copies are concerned.
enum class Space { kPageable, kPinned, kDevice };

inline Space space_of(const void* p, int device) {
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    // Runtimes before 11 answered this for pageable memory.
    cudaGetLastError();
    return Space::kPageable;
  }
  switch (a.type) {
    case cudaMemoryTypeDevice:
      if (a.device != device) {
        throw UsageError("a buffer passed to the CUDA backend is memory of GPU " +
                         std::to_string(a.device) + ", but the backend runs on GPU " +
                         std::to_string(device) + "; pass host memory or memory of GPU " +
                         std::to_string(device) + ".");
      }
      return Space::kDevice;
    case cudaMemoryTypeManaged:
      return Space::kDevice;
    case cudaMemoryTypeHost:
      return Space::kPinned;
    default:
      return Space::kPageable;
  }
}

// Makes `device` current and checks it can run the kernels; throws with
// gpu_available's reason otherwise. Returns `device`.
inline int use_device(int device) {
  std::string why;
  if (!gpu_available(&why, device)) throw Error(why, ErrorKind::no_device);
  GDEDUP_CUDA_CHECK(cudaSetDevice(device));
  return device;
}

inline uint64_t free_device_bytes() {
  size_t free_bytes = 0, total_bytes = 0;
  GDEDUP_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  return free_bytes;
}

}  // namespace gdedup::cuda
