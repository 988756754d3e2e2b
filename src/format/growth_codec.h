// The growth section of a checkpoint file, as bytes (docs/FORMAT.md,
// "Checkpoint file"): whether the filter grows and, when it does, its
// growth rule, memory limit, keys offered and number of layers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "format/byte_codec.h"
#include "gdedup/checkpoint.h"

namespace gdedup::format {

struct SavedGrowth {
  std::optional<GrowthState> growth;  // empty: a fixed filter
  uint32_t layers = 1;                // the first and the later ones
};

// A growth rule's six fields, in the order both the checkpoint's growth
// section and the filter file's rules section store them; checking the
// rule read is the caller's.
void encode_growth_rule(Encoder& e, const GrowthRule& rule);
GrowthRule decode_growth_rule(Decoder& d);

std::string encode_growth(const SavedGrowth& saved);

// Throws Error naming `path` when the bytes are not exactly one growth
// section with a rule this program can use and 1 to kMaxLayers layers (only
// possible for a file whose checksums were forged).
SavedGrowth decode_growth(const std::string& path, const std::string& bytes);

}  // namespace gdedup::format
