// The key of a structured record: a JSON Lines record's value at a path, or
// a CDXJ line's SURT, timestamp or value at a path in its JSON
// (docs/KEYS.md, "Structured records"). Parsed with simdjson: by default
// with its On-Demand API as far as the value, the values before it skipped
// by their brackets and quotes and those after it by their brackets; with
// strict_json every value is read, by its DOM parser first.
#pragma once

#include <string>
#include <string_view>

#include "gdedup/key_options.h"

namespace gdedup::keys {

// Writes the key of `record` under `spec` (a structured kind) into `out`,
// replacing its bytes: a string's unescaped bytes, or another value's
// canonical JSON text. False when the record lacks the value, when its JSON
// is more than one value, or when it is not JSON as far as it is read (with
// `strict_json`, anywhere); `out` is then empty. Thread-safe: each thread
// parses with a parser of its own.
bool structured_key(const KeySpec& spec, std::string_view record, bool strict_json,
                    std::string& out);

}  // namespace gdedup::keys
