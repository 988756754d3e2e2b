#include "gdedup/key_extractor.h"

#include "gdedup/error.h"
#include "keys/structured_key.h"
#include "keys/url_normalizer.h"

namespace gdedup::keys {

KeyExtractor::KeyExtractor(const KeyOptions& options, bool strict_json)
    : spec_(options.key),
      delimiter_(options.delimiter),
      structured_(spec_.structured()),
      strict_json_(strict_json) {
  if (spec_.kind == KeySpec::Kind::kColumn) {
    throw UsageError("the key " + spec_.to_string() + " is a column of Parquet input; a text "
                     "record has no columns: give whole, field:N, json:PATH or cdxj:PATH.");
  }
  if (spec_.kind == KeySpec::Kind::kField && spec_.field == 0) {
    throw UsageError("the key field number 0 is not valid: field numbers start at 1.");
  }
  if (!options.normalize.empty()) {
    normalizer_ = std::make_shared<const UrlNormalizer>(options.normalize);
  }
}

std::string_view KeyExtractor::normalized(std::string_view field, std::string& scratch) const {
  return normalizer_->normalize(field, scratch);
}

bool KeyExtractor::extract_structured(std::string_view record, std::string& scratch,
                                      std::string_view& key) const {
  if (!normalizer_) {
    const bool found = structured_key(spec_, record, strict_json_, scratch);
    key = scratch;
    return found;
  }
  // Normalizing reads one buffer and writes another.
  thread_local std::string value;
  if (!structured_key(spec_, record, strict_json_, value)) {
    key = {};
    return false;
  }
  key = normalized(value, scratch);
  return true;
}

}  // namespace gdedup::keys
