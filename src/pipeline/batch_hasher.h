// Selects each text record's key (options.keys) and fingerprints it with the
// filter's seed: XXH3-64 for a Bloom filter, the 84 bits of XXH3-128 for an
// exact set. One per thread: it keeps a scratch buffer for normalized keys.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "gdedup/key_hasher.h"
#include "gdedup/pipeline.h"
#include "pipeline/work_batch.h"

namespace gdedup::pipeline {

// How a run fingerprints its keys.
struct KeyHashing {
  uint64_t seed = kDefaultSeed;
  bool exact = false;  // 84-bit keys (WorkBatch::keys), not 64-bit fingerprints
};

class BatchHasher {
 public:
  // Throws UsageError for key options that cannot work with the record
  // separator (a field delimiter equal to it).
  BatchHasher(const PipelineOptions& options, const KeyHashing& hashing);

  // Sets batch.fingerprints (batch.keys when exact), one per record of
  // batch.records.
  void fingerprint(WorkBatch& batch);
  // One record's 64-bit fingerprint (not exact).
  uint64_t fingerprint(std::string_view record) { return hasher_(record, scratch_); }
  // One record's 84-bit key (exact).
  Key84 key(std::string_view record) { return hasher_.key84(record, scratch_); }
  bool exact() const { return exact_; }

 private:
  void fingerprint_noting_missing(WorkBatch& batch);

  keys::KeyHasher hasher_;
  bool exact_;
  std::string scratch_;
};

}  // namespace gdedup::pipeline
