// The stand-in's device, versions, errors and settings: one device that
// calls itself compute capability 9.0 with 132 multiprocessors (as an H200)
// and Settings::device_bytes of memory, under Settings::devices numbers.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

#include "runtime_state.h"

namespace cuda_standin {
namespace {

uint64_t env_number(const char* name, uint64_t fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text, &end, 0);
  return end != nullptr && *end == '\0' ? value : fallback;
}

Settings from_environment() {
  Settings s;
  s.seed = env_number("GDEDUP_STANDIN_SEED", s.seed);
  s.max_delay_us = static_cast<uint32_t>(env_number("GDEDUP_STANDIN_DELAY_US", s.max_delay_us));
  s.device_bytes = env_number("GDEDUP_STANDIN_DEVICE_BYTES", s.device_bytes);
  s.pinned_bytes = env_number("GDEDUP_STANDIN_PINNED_BYTES", s.pinned_bytes);
  s.devices = std::max<uint64_t>(1, env_number("GDEDUP_STANDIN_DEVICES", s.devices));
  s.launch_threads = static_cast<uint32_t>(
      std::min<uint64_t>(64, env_number("GDEDUP_STANDIN_LAUNCH_THREADS", s.launch_threads)));
  return s;
}

}  // namespace

namespace detail {

Runtime& runtime() {
  static Runtime* const rt = [] {
    auto* made = new Runtime;
    made->settings = from_environment();
    made->legacy = make_stream(*made, false, true);
    // Waits on made->changed until the process ends; made is never freed.
    made->legacy->worker.detach();
    return made;
  }();
  return *rt;
}

namespace {
thread_local cudaError_t last_error = cudaSuccess;
}  // namespace

cudaError_t report(cudaError_t error) {
  if (error != cudaSuccess) last_error = error;
  return error;
}

cudaError_t take_last_error(bool reset) {
  const cudaError_t error = last_error;
  if (reset) last_error = cudaSuccess;
  return error;
}

}  // namespace detail

Settings current() {
  detail::Runtime& rt = detail::runtime();
  detail::Lock lock(rt.mutex);
  return rt.settings;
}

void set(const Settings& settings) {
  detail::Runtime& rt = detail::runtime();
  detail::Lock lock(rt.mutex);
  rt.settings = settings;
  rt.streams_made = 0;
}

}  // namespace cuda_standin

using namespace cuda_standin::detail;

namespace {

constexpr int kVersion = 13000;  // CUDA 13.0, as the toolkit these tests build with
constexpr int kMultiprocessors = 132;

struct ErrorText {
  cudaError_t error;
  const char* name;
  const char* text;
};

constexpr ErrorText kErrors[] = {
    {cudaSuccess, "cudaSuccess", "no error"},
    {cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument"},
    {cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory"},
    {cudaErrorInitializationError, "cudaErrorInitializationError", "initialization error"},
    {cudaErrorInsufficientDriver, "cudaErrorInsufficientDriver",
     "CUDA driver version is insufficient for CUDA runtime version"},
    {cudaErrorNoDevice, "cudaErrorNoDevice", "no CUDA-capable device is detected"},
    {cudaErrorInvalidDevice, "cudaErrorInvalidDevice", "invalid device ordinal"},
    {cudaErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle",
     "invalid resource handle"},
    {cudaErrorNotReady, "cudaErrorNotReady", "device not ready"},
};

const ErrorText* find_error(cudaError_t error) {
  for (const ErrorText& e : kErrors) {
    if (e.error == error) return &e;
  }
  return nullptr;
}

}  // namespace

cudaError_t cudaGetLastError() { return take_last_error(true); }
cudaError_t cudaPeekAtLastError() { return take_last_error(false); }

const char* cudaGetErrorString(cudaError_t error) {
  const ErrorText* e = find_error(error);
  return e != nullptr ? e->text : "unrecognized error code";
}

const char* cudaGetErrorName(cudaError_t error) {
  const ErrorText* e = find_error(error);
  return e != nullptr ? e->name : "cudaErrorUnknown";
}

cudaError_t cudaDriverGetVersion(int* version) {
  if (version == nullptr) return report(cudaErrorInvalidValue);
  *version = kVersion;
  return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int* version) {
  if (version == nullptr) return report(cudaErrorInvalidValue);
  *version = kVersion;
  return cudaSuccess;
}

namespace {

// Devices 0 .. count - 1 (GDEDUP_STANDIN_DEVICES, default 1) are one and the
// same emulated device: what a process needs to run on device N, as the
// ranks of an MPI job on one machine do.
bool is_device(int device) {
  return device >= 0 && static_cast<uint64_t>(device) < cuda_standin::current().devices;
}

thread_local int t_device = 0;

}  // namespace

cudaError_t cudaGetDeviceCount(int* count) {
  if (count == nullptr) return report(cudaErrorInvalidValue);
  *count = static_cast<int>(cuda_standin::current().devices);
  return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
  if (!is_device(device)) return report(cudaErrorInvalidDevice);
  t_device = device;
  return cudaSuccess;
}

cudaError_t cudaGetDevice(int* device) {
  if (device == nullptr) return report(cudaErrorInvalidValue);
  *device = t_device;
  return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  if (prop == nullptr) return report(cudaErrorInvalidValue);
  if (!is_device(device)) return report(cudaErrorInvalidDevice);
  *prop = cudaDeviceProp{};
  std::strncpy(prop->name, "CUDA stand-in on the CPU", sizeof prop->name - 1);
  prop->totalGlobalMem = cuda_standin::current().device_bytes;
  prop->major = 9;
  prop->minor = 0;
  prop->multiProcessorCount = kMultiprocessors;
  return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  if (value == nullptr || attr != cudaDevAttrMultiProcessorCount) {
    return report(cudaErrorInvalidValue);
  }
  if (!is_device(device)) return report(cudaErrorInvalidDevice);
  *value = kMultiprocessors;
  return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes) {
  if (free_bytes == nullptr || total_bytes == nullptr) return report(cudaErrorInvalidValue);
  Runtime& rt = runtime();
  Lock lock(rt.mutex);
  *total_bytes = rt.settings.device_bytes;
  *free_bytes = rt.settings.device_bytes - std::min<uint64_t>(rt.device_in_use, rt.settings.device_bytes);
  return cudaSuccess;
}
