// The canonical form of the key rules a filter file records (docs/FORMAT.md,
// "Filter file"): what a refusal shows for the file's rules and the command's.
#include "gdedup/key_rules.h"

#include <cstdio>

#include "gdedup/frontend/number_text.h"

namespace gdedup {
namespace {

std::string separator_text(char separator) {
  if (separator == '\n') return "newline";
  if (separator == '\0') return "nul";
  char text[8];  // only a library caller's mistake; save_filter refuses it
  std::snprintf(text, sizeof text, "\\x%02x", static_cast<unsigned char>(separator));
  return text;
}

}  // namespace

std::string KeyRules::to_string() const {
  const std::string seed_text = hex64(seed);
  if (format == InputFormat::kU64) return std::string("input u64, seed ") + seed_text;
  const std::string normalize = keys.normalize.to_string();
  return "input text, key " + keys.key_text() + ", delimiter " + keys.delimiter_text() +
         ", normalize " + normalize + ", separator " + separator_text(record_separator) +
         ", seed " + seed_text;
}

bool KeyRules::operator==(const KeyRules& o) const {
  // Fingerprints read as they are have no key to select or normalize.
  const bool same_keys = format == InputFormat::kU64 ||
                         (keys == o.keys && record_separator == o.record_separator);
  return format == o.format && seed == o.seed && same_keys;
}

}  // namespace gdedup
