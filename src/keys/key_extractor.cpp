#include "gdedup/key_extractor.h"

#include "gdedup/error.h"
#include "keys/url_normalizer.h"

namespace gdedup::keys {

KeyExtractor::KeyExtractor(const KeyOptions& options)
    : spec_(options.key), delimiter_(options.delimiter) {
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

}  // namespace gdedup::keys
