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
  e.holds_sets = true;
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
  e.holds_sets = true;
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

namespace {

// The pipeline keeps a reading and a hashing thread busy beside the filter
// thread (which is also the backend's first thread), so by default the
// backend takes what the other two leave. On 2 cores that is one thread:
// measured 28.2M records/s against 22.9M with two (bench/RESULTS.md).
unsigned default_threads() {
  const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
  return hardware > 2 ? hardware - 2 : 1;
}

}  // namespace

MadeBackend choose_backend(const std::string& which, BackendOptions options, Filter& filter,
                           const std::string& given) {
  if (options.threads == 0) options.threads = default_threads();
  if (which != "auto") {
    const BackendEntry* entry = find_backend(which);
    if (entry == nullptr) {
      throw UsageError(given + ": expected auto or one of " + backend_names());
    }
    return entry->make(filter, options);
  }
  std::vector<SkippedBackend> skipped;
  const BackendEntry& entry = first_usable_backend(filter.held_bytes(), options, &skipped);
  MadeBackend made = entry.make(filter, options);
  // The library's reasons name no flag (error_advice.h), so none advises
  // the backend auto has just chosen.
  for (const SkippedBackend& s : skipped) {
    made.description += ": no " + s.name + " (" + s.why + ")";
  }
  return made;
}

std::string choose_set_backend(const std::string& which, const BackendOptions& options) {
  if (which != "auto") return which;
  for (const BackendEntry& e : entries()) {
    if (e.holds_sets && e.available(options, nullptr)) return e.name;
  }
  return "cpu";
}

}  // namespace gdedup
