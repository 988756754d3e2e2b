// A record's key as an exact set keeps it: the key options select the key
// from the record (KeyExtractor), as for a fingerprint (gdedup/key_hasher.h),
// then its XXH3-128 with the seed gives the key's 84 bits (gdedup::key84).
// A 64-bit fingerprint cannot serve: the set needs 84 bits of every key.
// Const, so one may serve many threads, each with a scratch string of its own.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "gdedup/key_extractor.h"
#include "gdedup/key_set.h"

namespace gdedup::python {

class Key84Hasher {
 public:
  Key84Hasher(const KeyOptions& keys, uint64_t seed)
      : extractor_(keys),
        whole_record_(extractor_.spec().kind == keys::KeySpec::Kind::kWhole &&
                      !extractor_.normalizes()),
        seed_(seed) {}

  Key84 operator()(std::string_view record, std::string& scratch) const {
    if (whole_record_) return key84(record.data(), record.size(), seed_);
    const std::string_view key = extractor_.key(record, scratch);
    return key84(key.data(), key.size(), seed_);
  }

 private:
  keys::KeyExtractor extractor_;
  bool whole_record_;
  uint64_t seed_;
};

}  // namespace gdedup::python
