// Which part of a record is the key: the whole record or one delimited field.
#pragma once

#include <cstdint>
#include <string_view>

namespace gdedup::keys {

struct KeySpec {
  enum class Kind { kWhole, kField };
  Kind kind = Kind::kWhole;
  // 1-based, as the user writes it; meaningful only for kField.
  uint32_t field = 0;

  static KeySpec whole() { return {Kind::kWhole, 0}; }
  static KeySpec nth_field(uint32_t n) { return {Kind::kField, n}; }
};

// "whole" or "line" for the whole record, "field:N" (N >= 1) for the N-th
// field. Throws gdedup::UsageError naming the value and the accepted forms.
KeySpec parse_key_spec(std::string_view text);

// One byte: given literally (",", "|"), by name (tab, comma, space, pipe,
// semicolon, colon) or as an escape (\t, \\, \xHH). Throws gdedup::UsageError
// for anything that is not exactly one byte after unescaping.
char parse_delimiter(std::string_view text);

}  // namespace gdedup::keys
