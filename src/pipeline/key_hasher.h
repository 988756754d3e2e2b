// Selects each text record's key (options.keys) and fingerprints it with the
// filter's seed. One per thread: it keeps a scratch buffer for normalized
// keys.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "gdedup/key_hasher.h"
#include "gdedup/pipeline.h"
#include "pipeline/work_batch.h"

namespace gdedup::pipeline {

class KeyHasher {
 public:
  // Throws UsageError for key options that cannot work with the record
  // separator (a field delimiter equal to it).
  KeyHasher(const PipelineOptions& options, uint64_t seed);

  // Sets batch.fingerprints, one per record of batch.records.
  void fingerprint(WorkBatch& batch);
  uint64_t fingerprint(std::string_view record) { return hasher_(record, scratch_); }

 private:
  keys::KeyHasher hasher_;
  std::string scratch_;
};

}  // namespace gdedup::pipeline
