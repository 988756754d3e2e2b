#include "keys/key_extractor.h"

#include "gdedup/error.h"

namespace gdedup::keys {

KeyExtractor::KeyExtractor(KeySpec spec, char delimiter, const NormalizeRules& rules)
    : spec_(spec), delimiter_(delimiter) {
  if (spec_.kind == KeySpec::Kind::kField && spec_.field == 0) {
    throw UsageError("the key field number 0 is not valid: field numbers start at 1.");
  }
  if (!rules.empty()) normalizer_.emplace(rules);
}

}  // namespace gdedup::keys
