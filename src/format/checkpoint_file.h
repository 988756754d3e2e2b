// Writing a checkpoint from bit arrays that need not be the filter's own
// (the background writer hands over a snapshot copied between batches; the
// ranks of an MPI job give theirs through LayerView::read), and reading one
// rank's part of one.
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

// Bytes [from, from + length) of the bit array of layer `layer` (0: the
// first, or a fixed filter's one) of the checkpoint at `path`, verified as
// load_checkpoint verifies the file, read into `into`: the blocks a rank of
// an MPI job holds. With `verify_all` the layer's whole bit array is read
// once more, a piece at a time, to check its checksum. Returns the layer's
// counters. Throws Error as load_checkpoint does, and UsageError for a
// layer or range the checkpoint does not hold.
FilterCounters read_checkpoint_slice(const std::string& path, size_t layer, uint64_t from,
                                     uint64_t length, unsigned char* into, bool verify_all);

}  // namespace gdedup::format
