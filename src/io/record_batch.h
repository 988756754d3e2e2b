// A batch of records: one contiguous byte buffer and the place of each record
// in it. Batches are reused: hand one back to RecordReader::next() and its
// memory serves again, so steady-state reading allocates nothing.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

namespace gdedup::io {

// One record: bytes [offset, offset + size) of the batch, without its '\n'.
struct RecordSpan {
  uint64_t offset;
  uint64_t size;
};

// How far the stream has been handed out, in the terms a checkpoint needs.
// Always on a record boundary. The end of one input and the start of the
// next are the same place and may be named either way.
struct StreamPosition {
  uint64_t records = 0;       // records handed out
  uint64_t offset = 0;        // uncompressed bytes they span, all inputs
  uint64_t input_index = 0;   // input the next record comes from
  uint64_t input_offset = 0;  // uncompressed bytes of that input handed out
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
  const StreamPosition& begin() const { return begin_; }
  const StreamPosition& end() const { return end_; }
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
  StreamPosition begin_;
  StreamPosition end_;
  uint64_t verified_records_ = 0;
};

}  // namespace gdedup::io
