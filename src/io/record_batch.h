// A batch of records: one contiguous byte buffer and the place of each record
// in it. Batches are reused: hand one back to RecordReader::next() and its
// memory serves again, so steady-state reading allocates nothing.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "gdedup/stream_point.h"

namespace gdedup::io {

// One record: bytes [offset, offset + size) of the batch, without its '\n'.
struct RecordSpan {
  uint64_t offset;
  uint64_t size;
};

class RecordBatch {
 public:
  size_t size() const { return spans_.size(); }
  bool empty() const { return spans_.empty(); }
  std::string_view operator[](size_t i) const {
    const RecordSpan& s = spans_[i];
    return {data_.get() + s.offset, static_cast<size_t>(s.size)};
  }
  const std::vector<RecordSpan>& spans() const { return spans_; }
  // The bytes the spans point into: the records with their '\n's.
  const char* data() const { return data_.get(); }

  // Where the stream stood before and after this batch: begin().records is
  // the index of the first record here in the whole stream.
  const StreamPoint& begin() const { return begin_; }
  const StreamPoint& end() const { return end_; }
  // Records of the stream known intact after this batch: every record
  // before this index has passed its input's integrity check (a gzip
  // member's CRC, a zstd frame's checksum), or its input has none. 0 when
  // this batch says nothing new (the check in progress began earlier).
  uint64_t verified_records() const { return verified_records_; }

 private:
  friend class RecordReader;

  std::unique_ptr<char[]> data_;
  size_t capacity_ = 0;
  std::vector<RecordSpan> spans_;
  StreamPoint begin_;
  StreamPoint end_;
  uint64_t verified_records_ = 0;
};

}  // namespace gdedup::io
