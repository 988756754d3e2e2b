// Copying one part of a URL (user info, host, path, a query parameter,
// fragment) with the byte-level rules: percent-escape case and decoding,
// and lowercasing.
#pragma once

#include <string_view>

#include "keys/bytes.h"

namespace gdedup::keys {

struct PercentRules {
  bool uppercase = false;         // "%2f" -> "%2F"
  bool decode_unreserved = false;  // "%7E" -> "~"
};

// Appends `part` to `out`. With `lower`, ASCII letters are lowercased except
// the hex digits of escapes, so that uppercase-percent and lowercasing never
// undo each other. Every byte sequence is accepted: a '%' not followed by two
// hex digits is copied as it is.
void copy_part(std::string_view part, const PercentRules& rules, bool lower, Out& out);

}  // namespace gdedup::keys
