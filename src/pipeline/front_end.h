// The front of the driver: everything before the filter. It reads, decodes
// and splits the inputs into records and fingerprints their keys, on threads
// of its own, and hands the filter stage batches strictly in input order, so
// that what the filter sees does not depend on how many threads read.
//
// Two kinds (make_front_end):
//  - sequential (PipelineOptions::read_threads 1, --input-format u64, and a
//    resume whose position lies inside standard input or a pipe):
//    one thread reads, decodes and splits, a second fingerprints, with five
//    batches among them, the filter stage and the output's;
//  - parallel (read_threads N > 1): N workers each take the next piece of
//    the input (pipeline/piece_plan.h) and read, decode, split and
//    fingerprint it; the filter stage takes the pieces' batches in order.
//    Memory: each worker holds at most kBatchesPerWorker (3) batches of
//    about 8 MiB (more for a record longer than that, up to the record
//    length limit) plus 25 bytes per record in them, that is about 31 MiB
//    per worker at 64-byte records, plus the two parts of records that
//    span pieces (each below the record length limit). A mapped plain
//    file's batches hold no buffer of their own: their bytes are the
//    file's pages in the page cache, mapped while a batch points into them
//    (io/mapped_bytes.h), in the process's resident memory as file pages.
#pragma once

#include <memory>

#include "gdedup/pipeline.h"
#include "gdedup/stream_point.h"
#include "pipeline/batch_hasher.h"
#include "pipeline/work_batch.h"

namespace gdedup::pipeline {

class FrontEnd {
 public:
  // Stops the threads (stop()).
  virtual ~FrontEnd() = default;

  // Resuming, before start(): the first batch will follow `target`, a
  // WorkBatch::end of an earlier run over the same inputs. Throws Error
  // (ErrorKind::resume_mismatch) when the inputs do not reach `target` at
  // the same offsets, as far as it can tell without reading what it skips.
  virtual void skip_to(const StreamPoint& target) = 0;
  virtual void start() = 0;
  // The next batch, fingerprinted, in input order; null at the end of the
  // input. Throws the first failure of reading (Error), after every batch
  // before it was handed out. The batch stays the front end's: recycle() it
  // when done with it. Two may be out at once, no more (the filter stage
  // answers one while the output's side writes the one before): a call
  // while two are out is a logic error.
  virtual WorkBatch* next() = 0;
  virtual void recycle(WorkBatch* batch) = 0;
  // Stops reading and joins the threads; next() may not be called again.
  virtual void stop() = 0;
  // The Parquet files read, whose schema the output takes; null for records.
  virtual const columnar::ParquetReader* parquet() const { return nullptr; }
};

// The sequential or the parallel front end, as options.read_threads and
// options.format ask; `hashing` says how text keys are fingerprinted. Opens
// the first input or plans the pieces, so that a missing input fails before
// any output is created; parses the key options (UsageError). The batches'
// fingerprints and answers live in memory `backend` hands out
// (Backend::host_buffer), which must outlive the front end; in plain
// memory when it is null.
std::unique_ptr<FrontEnd> make_front_end(const PipelineOptions& options,
                                         const KeyHashing& hashing, const Backend* backend);

}  // namespace gdedup::pipeline
