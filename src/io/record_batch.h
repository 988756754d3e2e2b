// A batch of records: one contiguous run of bytes and the place of each record
// in it. The bytes are the batch's own buffer, or part of a mapped file
// (io/mapped_bytes.h) that the batch keeps mapped while it points into it.
// Batches are reused: hand one back to RecordReader::next() and its memory
// serves again, so steady-state reading allocates nothing.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "gdedup/stream_point.h"
#include "io/mapped_bytes.h"

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
    return {base_ + s.offset, static_cast<size_t>(s.size)};
  }
  const std::vector<RecordSpan>& spans() const { return spans_; }
  // The bytes the spans point into: the records with their '\n's.
  const char* data() const { return base_; }
  // True when they lie in a mapped file (RecordReader's zero-copy reading).
  bool mapped() const { return mapped_ != nullptr; }
  // True once the mapped file was found cut short (MappedBytes::cut): the
  // bytes gone read as zeros since, so whatever used them since is wrong.
  bool cut() const { return mapped_ != nullptr && mapped_->cut(); }
  // The mapping the records lie in; null when they are the batch's own.
  const MappedBytes* mapping() const { return mapped_.get(); }

  // Where the stream stood before and after this batch: begin().records is
  // the index of the first record here in the whole stream.
  const StreamPoint& begin() const { return begin_; }
  const StreamPoint& end() const { return end_; }
  // Records of the stream known intact after this batch: every record
  // before this index has passed its input's integrity check (a gzip
  // member's CRC, a zstd frame's checksum), or its input has none. 0 when
  // this batch says nothing new (the check in progress began earlier).
  uint64_t verified_records() const { return verified_records_; }
  // True when the last record here was ended by its input's end, not by a
  // separator: a piece of a file (pipeline/piece_plan.h) ends with part of a
  // record that the next piece finishes.
  bool ends_unterminated() const {
    return !spans_.empty() && unterminated_ == spans_.size() - 1;
  }

  // Take the first or last record out of the batch (the bytes stay; begin()
  // and end() still count it): the parts of records that span pieces, which
  // the in-order stage joins.
  void drop_first() {
    spans_.erase(spans_.begin());
    unterminated_ = unterminated_ == 0 || unterminated_ == kNone ? kNone : unterminated_ - 1;
  }
  void drop_last() { spans_.pop_back(); }
  // Makes the batch hold one record, a copy of `record`: a record joined
  // from the parts that pieces of an input ended and began with.
  void hold_one(std::string_view record) {
    own();
    if (capacity_ < record.size() || !data_) {
      data_.reset(new char[std::max<size_t>(record.size(), 1)]);
      capacity_ = std::max<size_t>(record.size(), 1);
    }
    base_ = data_.get();
    std::memcpy(data_.get(), record.data(), record.size());
    spans_.assign(1, RecordSpan{0, record.size()});
    unterminated_ = kNone;
  }

 private:
  friend class RecordReader;

  // The batch's bytes become its own buffer's again (RecordReader fills
  // it): a mapping it pointed into is let go, and the pages before this
  // batch's bytes leave memory, the batches before it being done too.
  void own() {
    if (mapped_) {
      mapped_->done_before(base_);
      mapped_.reset();
    }
    base_ = data_.get();
  }
  // The batch's bytes start at `at` in `mapped`.
  void view(std::shared_ptr<MappedBytes> mapped, const char* at) {
    own();
    mapped_ = std::move(mapped);
    base_ = at;
  }

  std::unique_ptr<char[]> data_;
  size_t capacity_ = 0;
  const char* base_ = nullptr;  // data_, or a place in mapped_
  std::shared_ptr<MappedBytes> mapped_;
  std::vector<RecordSpan> spans_;
  StreamPoint begin_;
  StreamPoint end_;
  uint64_t verified_records_ = 0;
  // The index of the record an input's end cut (RecordReader::next), if any.
  static constexpr size_t kNone = static_cast<size_t>(-1);
  size_t unterminated_ = kNone;
};

}  // namespace gdedup::io
