#include "cli/backend_choice.h"

#include <algorithm>
#include <thread>
#include <vector>

#include "gdedup/error.h"

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

}  // namespace

MadeBackend choose_backend(const std::string& which, BackendOptions options, Filter& filter) {
  if (options.threads == 0) options.threads = default_threads();
  if (which != "auto") {
    const BackendEntry* entry = find_backend(which);
    if (entry == nullptr) {
      throw UsageError("--backend " + which + ": expected auto or one of " + backend_names());
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

std::string backend_choices_help() {
  std::string help = "auto (the first usable of " + backend_names() + ")";
  for (const BackendEntry& e : backend_registry()) {
    help += "; " + e.name + ": " + backend_summary(e);
  }
  return help;
}

std::string backend_summary(const BackendEntry& entry) {
  return entry.uses_device ? entry.summary + " (--device N)" : entry.summary;
}

}  // namespace gdedup::cli
