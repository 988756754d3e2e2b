// Writing a checkpoint from a bit array that need not be the filter's own:
// the background writer hands over a snapshot copied between batches.
#pragma once

#include <cstdint>
#include <string>

#include "gdedup/checkpoint.h"

namespace gdedup::pipeline {

// save_checkpoint() with the bit array given separately. `inject_failure`
// makes the write fail with EIO after the bit array, as a full disk would:
// the error path, exercised by tests.
void write_checkpoint_file(const uint32_t* words, const FilterParams& params,
                           const FilterCounters& counters, const ResumeState& state,
                           const std::string& path, bool inject_failure = false);

}  // namespace gdedup::pipeline
