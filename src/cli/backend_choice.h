// --backend, --filter-threads (bench: --threads) and --device: which registered backend runs the
// filter (gdedup/backend_registry.h).
#pragma once

#include <string>

#include "gdedup/backend_registry.h"
#include "gdedup/filter.h"

namespace gdedup::cli {

// auto takes the first registered backend that is available and fits the
// filter (the GPU, else the CPU) and says in the description why it passed
// over the others; a name insists: Error when that backend cannot run.
// options.threads 0 means the hardware threads less the pipeline's two (at
// least 1).
MadeBackend choose_backend(const std::string& which, BackendOptions options, Filter& filter);

// "auto (the first usable of gpu, cpu), gpu: a CUDA device ..., cpu: ...",
// for --backend's help.
std::string backend_choices_help();

// The entry's summary, with the flag that chooses its device when it uses
// one: "a CUDA device (--device N)".
std::string backend_summary(const BackendEntry& entry);

}  // namespace gdedup::cli
