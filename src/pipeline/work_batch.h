// What travels from the front end to the filter stage: one batch of records
// (text, or raw 64-bit fingerprints) with the fingerprint of each (or, for
// an exact set, its 84-bit key) and the answers.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "gdedup/backend.h"
#include "gdedup/key_set.h"
#include "columnar/parquet_table.h"
#include "io/record_batch.h"
#include "pipeline/host_array.h"

namespace gdedup::pipeline {

struct WorkBatch {
  // Fingerprints and answers live in memory `backend` hands out (pinned
  // for the GPU backend), which it reads and writes without a staging copy.
  // Null: plain memory.
  explicit WorkBatch(const Backend* backend)
      : fingerprints(backend), keys(backend), answers(backend) {}

  io::RecordBatch records;           // InputFormat::kText
  // Parquet input (pipeline/parquet_front_end.h): the slice of a row group
  // this batch is, and where it lies; null for records.
  std::unique_ptr<columnar::RowGroup> rows;
  columnar::RowGroupPlace place;
  HostArray<uint64_t> fingerprints;  // one per record, either format; none for an exact set
  HostArray<Key84> keys;             // an exact set's, one per record
  HostArray<uint8_t> answers;        // the backend's, one per record
  // The records, by index in the batch and in order, whose JSON or CDXJ key
  // is missing (--missing-key); empty for other keys.
  std::vector<uint64_t> missing;
  uint64_t input_bytes = 0;          // uncompressed bytes up to this batch's end
  uint64_t raw_bytes_read = 0;       // compressed bytes read so far
  StreamPoint end;            // the stream position after this batch
  // Records of the stream known intact after this batch (see
  // io::RecordBatch::verified_records()); 0 when it says nothing new.
  uint64_t verified_records = 0;
  // Whether the job can resume from `end`: a Parquet batch that does not
  // end its input row group cannot be, since the resume position is a row
  // group (docs/CHECKPOINT.md, "Parquet input"). Checkpoints, and the stop
  // a signal asks for, wait for a batch where it is true.
  bool resumable_after = true;  // a checkpoint may follow this batch
};

}  // namespace gdedup::pipeline
