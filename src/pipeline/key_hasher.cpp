#include "pipeline/key_hasher.h"

#include "gdedup/error.h"
#include "gdedup/fingerprint.h"

namespace gdedup::pipeline {

KeyHasher::KeyHasher(const PipelineOptions& options, uint64_t seed)
    : extractor_(options.keys),
      whole_record_(extractor_.spec().kind == keys::KeySpec::Kind::kWhole &&
                    !extractor_.normalizes()),
      seed_(seed) {
  if (extractor_.spec().kind == keys::KeySpec::Kind::kField &&
      options.keys.delimiter == options.record_separator) {
    throw UsageError("the field delimiter " + options.keys.delimiter_text() +
                     " is also the record separator, which never occurs inside a record, "
                     "so no record has a field past the first; give another delimiter");
  }
}

uint64_t KeyHasher::fingerprint(std::string_view record) {
  if (whole_record_) return gdedup::fingerprint(record.data(), record.size(), seed_);
  const std::string_view key = extractor_.key(record, scratch_);
  return gdedup::fingerprint(key.data(), key.size(), seed_);
}

void KeyHasher::fingerprint(WorkBatch& batch) {
  const size_t n = batch.records.size();
  batch.fingerprints.resize(n);
  uint64_t* fps = batch.fingerprints.data();
  // The common case without a call per record through the branch above.
  if (whole_record_) {
    for (size_t i = 0; i < n; ++i) {
      const std::string_view r = batch.records[i];
      fps[i] = gdedup::fingerprint(r.data(), r.size(), seed_);
    }
    return;
  }
  for (size_t i = 0; i < n; ++i) {
    const std::string_view key = extractor_.key(batch.records[i], scratch_);
    fps[i] = gdedup::fingerprint(key.data(), key.size(), seed_);
  }
}

}  // namespace gdedup::pipeline
