// The canonical form of the key rules a filter file records (docs/FORMAT.md,
// "Filter file"): what a refusal shows for the file's rules and the command's.
#include <cstdio>

#include "gdedup/filter_file.h"

namespace gdedup {

std::string KeyRules::to_string() const {
  char seed_text[24];
  std::snprintf(seed_text, sizeof seed_text, "0x%016llx", static_cast<unsigned long long>(seed));
  if (format == InputFormat::kU64) return std::string("input u64, seed ") + seed_text;
  const std::string normalize = keys.normalize.to_string();
  return "input text, key " + keys.key_text() + ", delimiter " + keys.delimiter_text() +
         ", normalize " + normalize + ", seed " + seed_text;
}

bool KeyRules::operator==(const KeyRules& o) const {
  // Fingerprints read as they are have no key to select or normalize.
  const bool same_keys = format == InputFormat::kU64 || keys == o.keys;
  return format == o.format && seed == o.seed && same_keys;
}

}  // namespace gdedup
