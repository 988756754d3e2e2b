// A record's key fingerprinted as every front end makes it: the key options
// (field, delimiter, normalization) select the key from the record
// (KeyExtractor), then XXH3-64 with the filter's seed, or for an exact set
// the 84 bits of XXH3-128 (gdedup/key_set.h). Const, so one may
// serve many threads, each with a scratch string of its own.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "gdedup/fingerprint.h"
#include "gdedup/key_extractor.h"
#include "gdedup/key_set.h"

namespace gdedup::keys {

class KeyHasher {
 public:
  KeyHasher(const KeyOptions& keys, uint64_t seed)
      : extractor_(keys),
        whole_record_(extractor_.spec().kind == KeySpec::Kind::kWhole && !extractor_.normalizes()),
        seed_(seed) {}

  // The key is the whole record as it is: callers may loop without the
  // extraction's branch.
  bool whole_record() const { return whole_record_; }
  uint64_t seed() const { return seed_; }

  uint64_t operator()(std::string_view record, std::string& scratch) const {
    if (whole_record_) return fingerprint(record.data(), record.size(), seed_);
    const std::string_view key = extractor_.key(record, scratch);
    return fingerprint(key.data(), key.size(), seed_);
  }
  Key84 key84(std::string_view record, std::string& scratch) const {
    const std::string_view key = whole_record_ ? record : extractor_.key(record, scratch);
    return gdedup::key84(key.data(), key.size(), seed_);
  }

 private:
  KeyExtractor extractor_;
  bool whole_record_;
  uint64_t seed_;
};

}  // namespace gdedup::keys
