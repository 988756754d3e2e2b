#include "gdedup/key_options.h"

namespace gdedup {

KeyOptions KeyOptions::parse(std::string_view key, std::string_view delimiter,
                             std::string_view normalize) {
  KeyOptions options;
  options.key = keys::parse_key_spec(key);
  options.delimiter = keys::parse_delimiter(delimiter);
  if (!normalize.empty()) options.normalize = keys::parse_normalize_rules(normalize);
  return options;
}

}  // namespace gdedup
