// The rules section of a version 3 or 4 filter file, as bytes (docs/FORMAT.md,
// "Filter file"): the key rules and the growth rule. Version 2's section is
// the same without the record separator.
#pragma once

#include <string>

#include "gdedup/filter_file.h"

namespace gdedup::format {

// The section as the current version writes it. Throws UsageError for key
// rules whose record separator is neither newline nor NUL.
std::string encode_filter_rules(const FilterRules& rules);

// The section of a file of `version` (2 or later); version 2 records no
// separator, so its key rules get the newline, the only one it was used
// with before -z. Throws Error naming `path` when the bytes are not exactly
// one set of rules in canonical form (only possible for a file whose
// checksums were forged or that another program wrote).
FilterRules decode_filter_rules(const std::string& path, const std::string& bytes,
                                uint32_t version);

}  // namespace gdedup::format
