// --backend auto|cpu|gpu and --threads: which backend runs the filter.
#pragma once

#include <memory>
#include <string>

#include "gdedup/backend.h"
#include "gdedup/filter.h"

namespace gdedup::cli {

struct ChosenBackend {
  std::unique_ptr<Backend> backend;
  // For the console: "cpu (AVX3, 2 threads): no GPU (why)" or "gpu (NVIDIA ...)".
  std::string description;
};

// auto takes the GPU when gpu_available() and the filter fits in its free
// memory, else the CPU, and says why. gpu insists: Error when it cannot run.
// `threads` 0 means the hardware threads less the pipeline's two (at least 1).
ChosenBackend choose_backend(const std::string& which, unsigned threads, Filter& filter);

}  // namespace gdedup::cli
