#include "pipeline/batch_hasher.h"

#include "gdedup/error.h"
#include "gdedup/fingerprint.h"

namespace gdedup::pipeline {

BatchHasher::BatchHasher(const PipelineOptions& options, const KeyHashing& hashing)
    : hasher_(options.keys, hashing.seed, options.strict_json), exact_(hashing.exact) {
  if (options.keys.key.kind == keys::KeySpec::Kind::kField &&
      options.keys.delimiter == options.record_separator) {
    throw UsageError("the field delimiter " + options.keys.delimiter_text() +
                     " is also the record separator, which never occurs inside a record, "
                     "so no record has a field past the first; give another delimiter");
  }
}

void BatchHasher::fingerprint(WorkBatch& batch) {
  const size_t n = batch.records.size();
  batch.missing.clear();
  if (hasher_.may_miss()) return fingerprint_noting_missing(batch);
  if (exact_) {
    batch.keys.resize(n);
    Key84* keys = batch.keys.data();
    for (size_t i = 0; i < n; ++i) keys[i] = hasher_.key84(batch.records[i], scratch_);
    return;
  }
  batch.fingerprints.resize(n);
  uint64_t* fps = batch.fingerprints.data();
  // The common case without a call per record through the branch above.
  if (hasher_.whole_record()) {
    const uint64_t seed = hasher_.seed();
    for (size_t i = 0; i < n; ++i) {
      const std::string_view r = batch.records[i];
      fps[i] = gdedup::fingerprint(r.data(), r.size(), seed);
    }
    return;
  }
  for (size_t i = 0; i < n; ++i) fps[i] = hasher_(batch.records[i], scratch_);
}

// Structured keys: each costs a parse, beside which the flag costs nothing.
void BatchHasher::fingerprint_noting_missing(WorkBatch& batch) {
  const size_t n = batch.records.size();
  bool found = true;
  if (exact_) {
    batch.keys.resize(n);
    for (size_t i = 0; i < n; ++i) {
      batch.keys.data()[i] = hasher_.key84(batch.records[i], scratch_, &found);
      if (!found) batch.missing.push_back(i);
    }
    return;
  }
  batch.fingerprints.resize(n);
  for (size_t i = 0; i < n; ++i) {
    batch.fingerprints.data()[i] = hasher_(batch.records[i], scratch_, &found);
    if (!found) batch.missing.push_back(i);
  }
}

}  // namespace gdedup::pipeline
