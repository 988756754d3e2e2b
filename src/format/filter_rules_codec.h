// The rules section of a version 2 filter file, as bytes (docs/FORMAT.md,
// "Filter file"): the key rules and the growth rule.
#pragma once

#include <string>

#include "gdedup/filter_file.h"

namespace gdedup::format {

std::string encode_filter_rules(const FilterRules& rules);

// Throws Error naming `path` when the bytes are not exactly one set of
// rules in canonical form (only possible for a file whose checksums were
// forged or that another program wrote).
FilterRules decode_filter_rules(const std::string& path, const std::string& bytes);

}  // namespace gdedup::format
