// Memory of the stand-in runtime. Device memory is host memory in a registry,
// so that copies can be checked against their cudaMemcpyKind and their
// bounds, and so that cudaPointerGetAttributes answers as CUDA 11+ does.
//
// Modelled (CUDA Runtime API, "API synchronization behavior"):
// - cudaMemcpy from pageable host memory to the device waits for the legacy
//   stream, takes the source into staging and returns before the device
//   copy completes (here up to 20 stream delays later); from pinned memory
//   it returns when the copy is done.
//   Device to host returns when the copy is done; device to device does not
//   wait.
// - cudaMemcpyAsync from pageable host memory takes the source at the call
//   and returns; from pinned memory the source is read when the stream gets
//   there. Into pageable host memory it returns when the copy is done; into
//   pinned memory it does not wait.
// - cudaFree and cudaFreeHost wait for the device to be idle.
// - cudaMallocHost fails beyond Settings::pinned_bytes in use, as a
//   system's limit on locked memory makes it fail.
// - New device allocations of up to 16 MiB hold garbage (0xa5 bytes), so
//   that reading memory nothing has written yet gives wrong answers; larger
//   ones hold what the system gives (zeros), to keep tests fast.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "runtime_state.h"

namespace cuda_standin::detail {

namespace {

// The registry entry (base address, allocation) that holds `p`, or null.
std::pair<const uintptr_t, Allocation>* entry_of(const void* p) {
  Runtime& rt = runtime();
  const uintptr_t at = reinterpret_cast<uintptr_t>(p);
  auto it = rt.allocations.upper_bound(at);
  if (it == rt.allocations.begin()) return nullptr;
  --it;
  return at < it->first + it->second.bytes ? &*it : nullptr;
}

}  // namespace

Allocation* allocation_of(Lock& lock, const void* p) {
  (void)lock;
  auto* entry = entry_of(p);
  return entry != nullptr ? &entry->second : nullptr;
}

cudaError_t space_of(Lock& lock, const void* p, size_t bytes, Space* space) {
  (void)lock;
  const auto* entry = entry_of(p);
  if (entry == nullptr) {
    *space = Space::kPageable;
    return cudaSuccess;
  }
  const uintptr_t at = reinterpret_cast<uintptr_t>(p);
  if (bytes > entry->first + entry->second.bytes - at) return cudaErrorInvalidValue;
  *space = entry->second.space;
  return cudaSuccess;
}

}  // namespace cuda_standin::detail

using namespace cuda_standin::detail;

namespace {

constexpr size_t kGarbageLimit = size_t{16} << 20;

cudaError_t allocate(void** p, size_t bytes, Space space) {
  if (p == nullptr) return report(cudaErrorInvalidValue);
  *p = nullptr;
  if (bytes == 0) return cudaSuccess;
  Runtime& rt = runtime();
  Lock lock(rt.mutex);
  if (space == Space::kDevice && bytes > rt.settings.device_bytes - std::min<uint64_t>(rt.device_in_use, rt.settings.device_bytes)) {
    return report(cudaErrorMemoryAllocation);
  }
  if (space == Space::kPinned &&
      bytes > rt.settings.pinned_bytes - std::min(rt.pinned_in_use, rt.settings.pinned_bytes)) {
    return report(cudaErrorMemoryAllocation);
  }
  const size_t rounded = (bytes + 255) / 256 * 256;
  void* memory = std::aligned_alloc(256, rounded);
  if (memory == nullptr) return report(cudaErrorMemoryAllocation);
  if (space == Space::kDevice) {
    if (bytes <= kGarbageLimit) std::memset(memory, 0xa5, rounded);
    rt.device_in_use += bytes;
  }
  if (space == Space::kPinned) rt.pinned_in_use += bytes;
  rt.allocations[reinterpret_cast<uintptr_t>(memory)] = Allocation{bytes, space};
  *p = memory;
  return cudaSuccess;
}

cudaError_t release(void* p, Space space) {
  if (p == nullptr) return cudaSuccess;
  cudaDeviceSynchronize();
  Runtime& rt = runtime();
  Lock lock(rt.mutex);
  auto it = rt.allocations.find(reinterpret_cast<uintptr_t>(p));
  if (it == rt.allocations.end() || it->second.space != space) return report(cudaErrorInvalidValue);
  if (space == Space::kDevice) rt.device_in_use -= it->second.bytes;
  if (space == Space::kPinned) rt.pinned_in_use -= it->second.bytes;
  rt.allocations.erase(it);
  std::free(p);
  return cudaSuccess;
}

// The direction a copy really takes, checked against `kind`.
cudaError_t direction(Lock& lock, void* dst, const void* src, size_t bytes, cudaMemcpyKind kind,
                      Space* to, Space* from) {
  if (space_of(lock, dst, bytes, to) != cudaSuccess ||
      space_of(lock, src, bytes, from) != cudaSuccess) {
    return cudaErrorInvalidValue;
  }
  const bool to_device = *to == Space::kDevice, from_device = *from == Space::kDevice;
  switch (kind) {
    case cudaMemcpyHostToHost: return !to_device && !from_device ? cudaSuccess : cudaErrorInvalidValue;
    case cudaMemcpyHostToDevice: return to_device && !from_device ? cudaSuccess : cudaErrorInvalidValue;
    case cudaMemcpyDeviceToHost: return !to_device && from_device ? cudaSuccess : cudaErrorInvalidValue;
    case cudaMemcpyDeviceToDevice: return to_device && from_device ? cudaSuccess : cudaErrorInvalidValue;
    case cudaMemcpyDefault: return cudaSuccess;
  }
  return cudaErrorInvalidValue;
}

// The DMA from staging lands up to 20 times the longest stream delay later,
// so that work that does not wait for it usually runs first.
std::function<void()> copy_from_staging(Stream& s, void* dst, const void* src, size_t bytes) {
  auto staging = std::make_shared<std::vector<unsigned char>>(
      static_cast<const unsigned char*>(src), static_cast<const unsigned char*>(src) + bytes);
  const uint64_t lag_us = s.rng() % (uint64_t{20} * runtime().settings.max_delay_us + 1);
  return [dst, staging, lag_us] {
    std::this_thread::sleep_for(std::chrono::microseconds(lag_us));
    std::memcpy(dst, staging->data(), staging->size());
  };
}

cudaError_t copy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind,
                 cudaStream_t stream, bool async) {
  Runtime& rt = runtime();
  Lock lock(rt.mutex);
  Space to, from;
  if (direction(lock, dst, src, bytes, kind, &to, &from) != cudaSuccess) {
    return report(cudaErrorInvalidValue);
  }
  if (bytes == 0) return cudaSuccess;
  for (const void* host : {static_cast<const void*>(dst), src}) {
    Allocation* a = allocation_of(lock, host);
    if (a != nullptr && a->space == Space::kPinned) ++a->copies;
  }
  const std::shared_ptr<Stream> s = stream_of(stream);
  const bool to_device = to == Space::kDevice, from_device = from == Space::kDevice;
  if (async && (to == Space::kPageable || from == Space::kPageable)) ++rt.pageable_async_copies;
  if (!from_device && from == Space::kPageable && to_device) {
    if (!async) wait_for(lock, Dependency{s, s->enqueued});
    enqueue(lock, s, copy_from_staging(*s, dst, src, bytes));
    return cudaSuccess;
  }
  const uint64_t sequence =
      enqueue(lock, s, [dst, src, bytes] { std::memmove(dst, src, bytes); });
  const bool wait = async ? !to_device && to == Space::kPageable : !(to_device && from_device);
  if (wait) wait_for(lock, Dependency{s, sequence});
  return cudaSuccess;
}

}  // namespace

namespace cuda_standin {

uint64_t device_bytes_in_use() {
  Runtime& rt = runtime();
  Lock lock(rt.mutex);
  return rt.device_in_use;
}

uint64_t pinned_bytes_in_use() {
  Runtime& rt = runtime();
  Lock lock(rt.mutex);
  return rt.pinned_in_use;
}

uint64_t pageable_async_copies() {
  Runtime& rt = runtime();
  Lock lock(rt.mutex);
  return rt.pageable_async_copies;
}

uint64_t copies_touching(const void* host) {
  Runtime& rt = runtime();
  Lock lock(rt.mutex);
  const Allocation* a = allocation_of(lock, host);
  return a != nullptr && a->space == Space::kPinned ? a->copies : 0;
}

}  // namespace cuda_standin

cudaError_t cudaMalloc(void** p, size_t bytes) { return allocate(p, bytes, Space::kDevice); }
cudaError_t cudaFree(void* p) { return release(p, Space::kDevice); }
cudaError_t cudaMallocHost(void** p, size_t bytes) { return allocate(p, bytes, Space::kPinned); }
cudaError_t cudaFreeHost(void* p) { return release(p, Space::kPinned); }

cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attributes, const void* p) {
  if (attributes == nullptr) return report(cudaErrorInvalidValue);
  Runtime& rt = runtime();
  Lock lock(rt.mutex);
  Space space;
  space_of(lock, p, 0, &space);
  attributes->device = 0;
  attributes->devicePointer = nullptr;
  attributes->hostPointer = nullptr;
  switch (space) {
    case Space::kDevice:
      attributes->type = cudaMemoryTypeDevice;
      attributes->devicePointer = const_cast<void*>(p);
      break;
    case Space::kPinned:
      attributes->type = cudaMemoryTypeHost;
      attributes->devicePointer = const_cast<void*>(p);
      attributes->hostPointer = const_cast<void*>(p);
      break;
    case Space::kPageable:
      attributes->type = cudaMemoryTypeUnregistered;
      break;
  }
  return cudaSuccess;
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
  return copy(dst, src, bytes, kind, nullptr, false);
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t stream) {
  return copy(dst, src, bytes, kind, stream, true);
}

cudaError_t cudaMemsetAsync(void* dst, int value, size_t bytes, cudaStream_t stream) {
  Runtime& rt = runtime();
  Lock lock(rt.mutex);
  Space space;
  if (space_of(lock, dst, bytes, &space) != cudaSuccess || space != Space::kDevice) {
    return report(cudaErrorInvalidValue);
  }
  enqueue(lock, stream_of(stream), [dst, value, bytes] { std::memset(dst, value, bytes); });
  return cudaSuccess;
}
