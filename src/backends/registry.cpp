// The built-in entries: the GPU first, so that auto prefers it, then the CPU.
// gpu.h exists in every build, so this file needs no #ifdef: without CUDA
// the GPU entry is unavailable and says it was not built.
#include "gdedup/backend_registry.h"

#include <algorithm>
#include <thread>
#include <utility>

#include "gdedup/error.h"
#include "gdedup/gpu.h"

namespace gdedup {
namespace {

BackendEntry cpu_entry() {
  BackendEntry e;
  e.name = "cpu";
  e.summary = "the processor's cores, with the best SIMD instructions they have";
  e.available = [](const BackendOptions&, std::string*) { return true; };
  e.check_fits = [](uint64_t, const BackendOptions&) {};
  e.make = [](Filter& filter, const BackendOptions& options) {
    CpuOptions cpu;
    cpu.threads = options.threads;
    MadeBackend made;
    made.backend = make_cpu_backend(filter, cpu);
    const unsigned threads =
        options.threads != 0 ? options.threads : std::max(1u, std::thread::hardware_concurrency());
    // "cpu (AVX3)" becomes "cpu (AVX3, 2 threads)".
    std::string name = made.backend->name();
    const std::string count = std::to_string(threads) + (threads == 1 ? " thread" : " threads");
    if (!name.empty() && name.back() == ')') {
      name.insert(name.size() - 1, ", " + count);
    } else {
      name += " (" + count + ")";
    }
    made.description = name;
    return made;
  };
  return e;
}

BackendEntry gpu_entry() {
  BackendEntry e;
  e.name = "gpu";
  e.summary = "a CUDA device";
  e.uses_device = true;
  e.available = [](const BackendOptions& options, std::string* why_not) {
    return gpu_available(why_not, options.device);
  };
  e.check_fits = [](uint64_t filter_bytes, const BackendOptions& options) {
    GpuOptions gpu;
    gpu.device = options.device;
    check_gpu_fits(filter_bytes, gpu);
  };
  e.make = [](Filter& filter, const BackendOptions& options) {
    const GpuDeviceInfo device = gpu_device_info(options.device);
    GpuOptions gpu;
    gpu.device = options.device;
    MadeBackend made;
    made.backend = make_gpu_backend(filter, gpu);
    made.description = "gpu (" + device.name + ", device " + std::to_string(options.device) +
                       ", " + std::to_string(device.free_bytes >> 20) +
                       " MiB free before the filter)";
    return made;
  };
  return e;
}

std::vector<BackendEntry>& entries() {
  static std::vector<BackendEntry> registry{gpu_entry(), cpu_entry()};
  return registry;
}

}  // namespace

const std::vector<BackendEntry>& backend_registry() { return entries(); }

const BackendEntry* find_backend(const std::string& name) {
  for (const BackendEntry& e : entries()) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

std::string backend_names() {
  std::string names;
  for (const BackendEntry& e : entries()) names += (names.empty() ? "" : ", ") + e.name;
  return names;
}

void register_backend(BackendEntry entry) {
  if (entry.name == "auto" || find_backend(entry.name) != nullptr) {
    throw Error("a backend named " + entry.name + " cannot be registered: the name is taken (" +
                backend_names() + ", auto)");
  }
  entries().push_back(std::move(entry));
}

const BackendEntry& first_usable_backend(uint64_t filter_bytes, const BackendOptions& options,
                                         std::vector<SkippedBackend>* skipped) {
  std::string why;
  for (const BackendEntry& e : entries()) {
    if (e.available(options, &why)) {
      try {
        e.check_fits(filter_bytes, options);
        return e;
      } catch (const Error& error) {
        why = error.what();
      }
    }
    if (skipped != nullptr) skipped->push_back({e.name, why});
  }
  throw Error("no backend can run here: " + backend_names() + " are all unavailable");
}

}  // namespace gdedup
