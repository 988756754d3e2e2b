// What travels from the reading thread to the filter thread: one batch of
// records (text, or raw 64-bit fingerprints) with the fingerprint of each.
#pragma once

#include <cstdint>
#include <vector>

#include "io/record_batch.h"

namespace gdedup::pipeline {

struct WorkBatch {
  io::RecordBatch records;           // InputFormat::kText
  std::vector<uint64_t> fingerprints;  // one per record, either format
  std::vector<uint8_t> answers;      // the backend's, one per record
  uint64_t input_bytes = 0;          // uncompressed bytes up to this batch's end
  uint64_t raw_bytes_read = 0;       // compressed bytes read so far
  StreamPoint end;            // the stream position after this batch
  // Records of the stream known intact after this batch (see
  // io::RecordBatch::verified_records()); 0 when it says nothing new.
  uint64_t verified_records = 0;
};

}  // namespace gdedup::pipeline
