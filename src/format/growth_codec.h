// The growth section of a checkpoint file, as bytes (docs/FORMAT.md,
// "Checkpoint file"): whether the filter grows and, when it does, its
// growth rule, memory limit, keys offered and number of layers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "gdedup/checkpoint.h"

namespace gdedup::format {

struct SavedGrowth {
  std::optional<GrowthState> growth;  // empty: a fixed filter
  uint32_t layers = 1;                // the first and the later ones
};

std::string encode_growth(const SavedGrowth& saved);

// Throws Error naming `path` when the bytes are not exactly one growth
// section with a rule this program can use and 1 to kMaxLayers layers (only
// possible for a file whose checksums were forged).
SavedGrowth decode_growth(const std::string& path, const std::string& bytes);

}  // namespace gdedup::format
