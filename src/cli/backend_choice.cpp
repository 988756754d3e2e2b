#include "cli/backend_choice.h"

#include <thread>

#include "cli/numbers.h"
#include "gdedup/error.h"
#include "gdedup/gpu.h"

namespace gdedup::cli {
namespace {

// The pipeline keeps a reading and a hashing thread busy beside the filter
// thread (which is also the backend's first thread), so by default the
// backend takes what the other two leave. On 2 cores that is one thread:
// measured 28.2M records/s against 22.9M with two (bench/RESULTS.md).
unsigned default_threads() {
  const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
  return hardware > 2 ? hardware - 2 : 1;
}

ChosenBackend make_cpu(unsigned threads, Filter& filter, const std::string& why_not_gpu) {
  const unsigned actual = threads != 0 ? threads : default_threads();
  CpuOptions options;
  options.threads = actual;
  ChosenBackend chosen;
  chosen.backend = make_cpu_backend(filter, options);
  std::string name = chosen.backend->name();  // "cpu (AVX3)"
  const std::string count = std::to_string(actual) + (actual == 1 ? " thread" : " threads");
  if (!name.empty() && name.back() == ')') {
    name.insert(name.size() - 1, ", " + count);
  } else {
    name += " (" + count + ")";
  }
  chosen.description = name;
  if (!why_not_gpu.empty()) chosen.description += ": no GPU (" + why_not_gpu + ")";
  return chosen;
}

ChosenBackend make_gpu(Filter& filter) {
  const GpuDeviceInfo device = gpu_device_info();
  ChosenBackend chosen;
  chosen.backend = make_gpu_backend(filter);
  chosen.description = "gpu (" + device.name + ", " + human_bytes(device.free_bytes) +
                       " free before the filter)";
  return chosen;
}

// The reason auto fell back to the CPU, without the advice to choose the CPU
// that the GPU backend's messages end with: auto has just done that.
std::string fallback_reason(std::string text) {
  for (const char* advice : {"; use --backend cpu", "; update the driver or use --backend cpu",
                             " or use --backend cpu"}) {
    const size_t at = text.rfind(advice);
    if (at != std::string::npos) text.erase(at);
  }
  while (!text.empty() && (text.back() == '.' || text.back() == ' ')) text.pop_back();
  return text;
}

}  // namespace

ChosenBackend choose_backend(const std::string& which, unsigned threads, Filter& filter) {
  if (which == "cpu") return make_cpu(threads, filter, "");
  if (which == "gpu") return make_gpu(filter);
  if (which != "auto") throw UsageError("--backend " + which + ": expected auto, cpu or gpu");
  std::string why;
  if (gpu_available(&why)) {
    try {
      check_gpu_fits(filter.params().bytes());
      return make_gpu(filter);
    } catch (const Error& e) {
      why = e.what();
    }
  }
  return make_cpu(threads, filter, fallback_reason(why));
}

}  // namespace gdedup::cli
