// A key's fingerprint as the command makes it: the key rules (field,
// delimiter, normalization) select the key from the record, then XXH3-64
// with the filter's seed. No Python here: it runs with the GIL released.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "gdedup/filter_file.h"
#include "gdedup/fingerprint.h"
#include "gdedup/key_extractor.h"

namespace gdedup::python {

class KeyHasher {
 public:
  explicit KeyHasher(const KeyRules& rules)
      : extractor_(rules.keys),
        whole_(rules.keys.key == keys::KeySpec::whole() && rules.keys.normalize.empty()),
        seed_(rules.seed) {}

  // `scratch` is the caller's, one per thread (KeyExtractor::key).
  uint64_t operator()(std::string_view record, std::string& scratch) const {
    if (whole_) return fingerprint(record.data(), record.size(), seed_);
    const std::string_view key = extractor_.key(record, scratch);
    return fingerprint(key.data(), key.size(), seed_);
  }

 private:
  keys::KeyExtractor extractor_;
  bool whole_;
  uint64_t seed_;
};

}  // namespace gdedup::python
