// The rules that make a record's key, as a filter file records them: a key
// made by other rules is another key (docs/FORMAT.md, "Filter file").
#pragma once

#include <cstdint>
#include <string>

#include "gdedup/fingerprint.h"
#include "gdedup/key_options.h"
#include "gdedup/mode.h"

namespace gdedup {

// How a filter's keys were made: a key found by other rules is another key.
struct KeyRules {
  InputFormat format = InputFormat::kText;
  KeyOptions keys;  // text input only; u64 fingerprints have no key options
  // Text input only: the byte that ends a record, '\n' or '\0' (-z). It
  // decides which bytes a record, and so its key, holds: "a\nb" is one key
  // when records end at NUL and two keys when they end at newlines.
  char record_separator = '\n';
  uint64_t seed = kDefaultSeed;

  // The canonical form, e.g. "input text, key whole, delimiter tab,
  // normalize none, separator newline, seed 0x6764656475700001"; equal
  // rules give equal texts.
  std::string to_string() const;
  bool operator==(const KeyRules& o) const;
  bool operator!=(const KeyRules& o) const { return !(*this == o); }
};

}  // namespace gdedup
