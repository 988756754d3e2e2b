// How the command describes the registered backends (gdedup/backend_registry.h)
// in --backend's help and `gdedup bench --list`.
#pragma once

#include <string>

#include "gdedup/backend_registry.h"

namespace gdedup::cli {

// "auto (the first usable of gpu, cpu), gpu: a CUDA device ..., cpu: ...",
// for --backend's help.
std::string backend_choices_help();

// The entry's summary, with the flag that chooses its device when it uses
// one: "a CUDA device (--device N)".
std::string backend_summary(const BackendEntry& entry);

}  // namespace gdedup::cli
