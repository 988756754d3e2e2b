// The key rules of a Python Filter, Set or fingerprint call, from its key=,
// delimiter= and normalize= arguments (the command's --key, --delimiter and
// --normalize, docs/KEYS.md), their check against a filter file's, and the
// check of its strict_json= against them.
#pragma once

#include <optional>
#include <string>

#include "gdedup/filter_file.h"

namespace gdedup::python {

using OptionalText = std::optional<std::string>;

// Text records with these options and the default seed; None takes the
// command's default (whole record, tab, no normalization). Throws
// UsageError naming a bad value.
KeyRules key_rules(const OptionalText& key, const OptionalText& delimiter,
                   const OptionalText& normalize);

// strict_json=True (the command's --strict-json) with rules whose key every
// record has is refused (UsageError), as a job refuses it. Called with the
// GIL held or released.
void check_strict_json(const KeyRules& rules, bool strict_json);

// The rules a filter or set (`noun`, for the message) loaded from `path`
// works by: the file's own, which the arguments given (if any) must match,
// else (a filter file that records none) the arguments' or the defaults.
// Throws UsageError naming both rule sets on a mismatch, as the command
// refuses one.
KeyRules loaded_key_rules(const std::string& path, const char* noun,
                          const std::optional<KeyRules>& recorded,
                          const OptionalText& key, const OptionalText& delimiter,
                          const OptionalText& normalize);

}  // namespace gdedup::python
