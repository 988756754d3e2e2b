// Fills work batches from the inputs: records and their fingerprints. next()
// and skip_to() run on the reading thread, fingerprint() on the hashing
// thread; each touches only what its thread owns.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "gdedup/pipeline.h"
#include "io/record_reader.h"
#include "pipeline/batch_hasher.h"
#include "pipeline/work_batch.h"

namespace gdedup::pipeline {

class BatchSource {
 public:
  virtual ~BatchSource() = default;
  // Refills `batch`; false at the end of the input. Throws Error for damaged
  // or unreadable input after the batches before the damage were handed out.
  virtual bool next(WorkBatch& batch) = 0;
  // Sets batch.fingerprints, one per record of a batch next() filled.
  virtual void fingerprint(WorkBatch& batch) = 0;
  // Resuming: reads past everything before `target` (a WorkBatch::end of an
  // earlier run over the same inputs) without handing it out. Throws Error
  // when the inputs do not reach `target` at the same offsets.
  virtual void skip_to(const StreamPoint& target) = 0;
};

// How text input is split into records for `options`.
io::ReaderOptions text_reader_options(const PipelineOptions& options);

// Text records keyed by options.keys, fingerprinted as `hashing` says; or raw
// fingerprints for InputFormat::kU64.
std::unique_ptr<BatchSource> make_batch_source(const PipelineOptions& options,
                                               const KeyHashing& hashing);

}  // namespace gdedup::pipeline
