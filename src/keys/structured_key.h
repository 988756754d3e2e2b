// The key of a structured record: a JSON Lines record's value at a path, or
// a CDXJ line's SURT, timestamp or value at a path in its JSON
// (docs/KEYS.md, "Structured records"). Parsed with simdjson's On-Demand
// API only as far as the value.
#pragma once

#include <string>
#include <string_view>

#include "gdedup/key_options.h"

namespace gdedup::keys {

// Writes the key of `record` under `spec` (a structured kind) into `out`,
// replacing its bytes: a string's unescaped bytes, or another value's
// canonical JSON text. False when the record lacks the value or is not JSON
// as far as it is read; `out` is then empty. Thread-safe: each thread
// parses with a parser of its own.
bool structured_key(const KeySpec& spec, std::string_view record, std::string& out);

}  // namespace gdedup::keys
