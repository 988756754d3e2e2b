// Writing a checkpoint from bit arrays that need not be the filter's own:
// the background writer hands over a snapshot copied between batches.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "format/layers_codec.h"
#include "gdedup/checkpoint.h"

namespace gdedup::format {

// save_checkpoint() with the bit arrays given separately: one layer and no
// state.growth for a fixed filter, every layer, oldest first, and
// state.growth for a growing one (state.later_layers is not used).
void write_checkpoint_file(const std::vector<LayerView>& layers, const ResumeState& state,
                           const std::string& path);

}  // namespace gdedup::format
