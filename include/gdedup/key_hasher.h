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
  // strict_json: as KeyExtractor's.
  KeyHasher(const KeyOptions& keys, uint64_t seed, bool strict_json = false)
      : extractor_(keys, strict_json),
        whole_record_(extractor_.spec().kind == KeySpec::Kind::kWhole && !extractor_.normalizes()),
        seed_(seed) {}

  // The key is the whole record as it is: callers may loop without the
  // extraction's branch.
  bool whole_record() const { return whole_record_; }
  uint64_t seed() const { return seed_; }

  // The key may be missing from a record: a JSON or CDXJ key.
  bool may_miss() const { return extractor_.spec().structured(); }
  std::string key_text() const { return extractor_.spec().to_string(); }
  bool strict_json() const { return extractor_.strict_json(); }

  // With `found`, whether the record has its key (KeyExtractor::extract);
  // a record without one is fingerprinted as the empty key.
  uint64_t operator()(std::string_view record, std::string& scratch,
                      bool* found = nullptr) const {
    if (whole_record_) return fingerprint(record.data(), record.size(), seed_);
    const std::string_view key = select(record, scratch, found);
    return fingerprint(key.data(), key.size(), seed_);
  }
  Key84 key84(std::string_view record, std::string& scratch, bool* found = nullptr) const {
    const std::string_view key = whole_record_ ? record : select(record, scratch, found);
    return gdedup::key84(key.data(), key.size(), seed_);
  }

 private:
  std::string_view select(std::string_view record, std::string& scratch, bool* found) const {
    std::string_view key;
    const bool has = extractor_.extract(record, scratch, key);
    if (found != nullptr) *found = has;
    return key;
  }

  KeyExtractor extractor_;
  bool whole_record_;
  uint64_t seed_;
};

}  // namespace gdedup::keys
