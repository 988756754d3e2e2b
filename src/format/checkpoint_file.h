// Writing a checkpoint from a bit array that need not be the filter's own:
// the background writer hands over a snapshot copied between batches.
#pragma once

#include <cstdint>
#include <string>

#include "gdedup/checkpoint.h"

namespace gdedup::format {

// save_checkpoint() with the bit array given separately.
void write_checkpoint_file(const uint32_t* words, const FilterParams& params,
                           const FilterCounters& counters, const ResumeState& state,
                           const std::string& path);

}  // namespace gdedup::format
