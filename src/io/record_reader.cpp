#include "io/record_reader.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <string>

#include "gdedup/error.h"
#include "io/separator_scan.h"

namespace gdedup::io {

namespace {
constexpr size_t kNoBoundary = static_cast<size_t>(-1);
}  // namespace

std::string separator_name(char separator) {
  if (separator == '\n') return "newline";
  if (separator == '\0') return "NUL";
  const char* const hex = "0123456789abcdef";
  const auto byte = static_cast<unsigned char>(separator);
  return std::string("byte 0x") + hex[byte >> 4] + hex[byte & 15];
}

RecordReader::RecordReader(MultiSource source, ReaderOptions options)
    : source_(std::move(source)), options_(options) {
  if (options_.batch_bytes == 0 || options_.batch_records == 0) {
    throw UsageError("a record batch must allow at least one byte and one record.");
  }
}

RecordReader::RecordReader(std::unique_ptr<ByteSource> source, ReaderOptions options)
    : RecordReader(MultiSource(std::move(source)), options) {}

void RecordReader::prepare(RecordBatch& batch, size_t needed) {
  // A batch grown for one huge record goes back to the normal size, so that
  // a single 1 GB line does not pin 1 GB for the rest of the run.
  size_t normal = std::max(needed, options_.batch_bytes);
  if (batch.capacity_ < normal || batch.capacity_ > 4 * normal) {
    batch.data_.reset();
    batch.data_.reset(new char[normal]);  // not value-initialised: no memset
    batch.capacity_ = normal;
  }
  batch.own();
  batch.spans_.clear();
}

void RecordReader::split(RecordBatch& batch, size_t fill) {
  const char* data = batch.base_;
  auto& spans = batch.spans_;
  const size_t limit = options_.batch_records;
  // Separators found a scan at a time: 4 KiB of offsets, on the stack.
  constexpr size_t kOffsets = 1024;
  uint32_t offsets[kOffsets];
  while (spans.size() < limit && scan_ < fill) {
    const size_t size = std::min(fill - scan_, kMaxSeparatorScan);
    const size_t want = std::min(limit - spans.size(), kOffsets);
    const size_t found = find_separators(data + scan_, size, options_.separator, offsets, want);
    for (size_t k = 0; k < found; ++k) {
      const size_t at = scan_ + offsets[k];
      // Left unfinished, so that next() reports it.
      if (at - record_start_ > options_.max_record_bytes) {
        scan_ = fill;
        return;
      }
      spans.push_back({record_start_, at - record_start_});
      record_start_ = at + 1;
    }
    scan_ = found == want ? record_start_ : scan_ + size;
  }
}

bool RecordReader::next(RecordBatch& batch) {
  if (failure_) std::rethrow_exception(failure_);
  begin_batch(batch);
  if (done_ && carry_.empty()) return false;
  if (fresh_input_ && !mapped_) map_input();
  if (mapped_) return next_mapped(batch);

  prepare(batch, carry_.size());
  size_t fill = carry_.size();
  if (fill > 0) std::memcpy(batch.data_.get(), carry_.data(), fill);
  carry_.clear();
  if (carry_.capacity() > 2 * options_.batch_bytes) std::vector<char>().swap(carry_);
  record_start_ = 0;
  scan_ = 0;
  size_t boundary = kNoBoundary;  // batch offset where the current input began
  // Reads in pieces sized to the record limit: what is read past the batch's
  // last record is copied on to the next batch, and reading a whole buffer
  // for a few records would copy megabytes per batch.
  const size_t chunk = std::clamp<size_t>(options_.batch_records * 128, size_t{64} << 10,
                                          size_t{1} << 20);

  for (;;) {
    split(batch, fill);
    try {
      // Only an unfinished record counts: with the batch's record limit
      // reached, the bytes past it may still hold separators.
      if (scan_ == fill && fill - record_start_ > options_.max_record_bytes) {
        throw record_too_long(batch, boundary);
      }
      if (batch.spans_.size() >= options_.batch_records || done_) break;
      if (fill == batch.capacity_) {
        if (record_start_ > 0) break;  // the unfinished record moves on
        grow(batch, fill);
      }
    } catch (const Error&) {
      fail(batch, fill, boundary);
      break;
    }
    size_t n = 0;
    bool more_inputs = true;
    try {
      n = source_.read(batch.data_.get() + fill, std::min(batch.capacity_ - fill, chunk));
      if (n == 0) {
        // The end of one input ends its last line too.
        if (record_start_ < fill) {
          batch.spans_.push_back({record_start_, fill - record_start_});
          record_start_ = scan_ = fill;
          batch.unterminated_ = batch.spans_.size() - 1;
        }
        boundary = fill;
        more_inputs = source_.next_input();
        if (more_inputs) map_input();
      }
    } catch (...) {
      fail(batch, fill, boundary);
      break;
    }
    fill += n;
    if (!more_inputs) done_ = true;
    // A mapped input's records go out in batches of their own.
    if (mapped_) break;
  }
  finish(batch, fill, boundary);
  if (batch.spans_.empty() && mapped_) return next_mapped(batch);
  // Empty only when the stream ended: every input's bytes end in a record.
  return !batch.spans_.empty();
}

void RecordReader::map_input() {
  fresh_input_ = false;
  mapped_ = source_.map_current(options_.min_mapped_bytes);
  mapped_at_ = 0;
}

void RecordReader::begin_batch(RecordBatch& batch) const {
  batch.begin_ = batch.end_ = position_;
  batch.spans_.clear();
  batch.unterminated_ = RecordBatch::kNone;
}

bool RecordReader::next_mapped(RecordBatch& batch) {
  // After a read batch that ended its input, the position has moved on.
  begin_batch(batch);
  batch.view(mapped_, mapped_->data() + mapped_at_);
  const uint64_t left = mapped_->size() - mapped_at_;
  record_start_ = 0;
  scan_ = 0;
  size_t fill = static_cast<size_t>(std::min<uint64_t>(left, options_.batch_bytes));
  size_t boundary = kNoBoundary;
  try {
    for (;;) {
      split(batch, fill);
      // Records read from the zeros of a cut mapping never go out.
      if (mapped_->cut()) {
        batch.spans_.clear();
        record_start_ = 0;
        source_.mapped_to(mapped_at_ + fill);
      }
      if (batch.spans_.size() >= options_.batch_records) break;
      if (scan_ == fill && fill - record_start_ > options_.max_record_bytes) {
        throw record_too_long(batch, boundary);
      }
      if (fill == left) {
        // The input's end: its checks first, as read() runs them before
        // its last record is ended.
        source_.mapped_to(left);
        if (record_start_ < fill) {
          batch.spans_.push_back({record_start_, fill - record_start_});
          record_start_ = scan_ = fill;
          batch.unterminated_ = batch.spans_.size() - 1;
        }
        boundary = fill;
        mapped_.reset();
        fresh_input_ = true;
        if (!source_.next_input()) done_ = true;
        break;
      }
      // The unfinished record starts the next batch; one record longer
      // than a batch is looked at further, up to the record length limit.
      if (record_start_ > 0) break;
      fill = static_cast<size_t>(
          std::min<uint64_t>({left, uint64_t{fill} * 2, options_.max_record_bytes + 1}));
    }
    if (mapped_) source_.mapped_to(mapped_at_ + record_start_);
  } catch (...) {
    fail(batch, fill, boundary);
  }
  finish(batch, fill, boundary);
  // An input whose last record ended the batch before ends in an empty
  // batch: the stream goes on with the next input.
  if (batch.spans_.empty() && !done_) return next(batch);
  return !batch.spans_.empty();
}

void RecordReader::fail(RecordBatch& batch, size_t& fill, size_t boundary) {
  failure_ = std::current_exception();
  // Hand out what came before the failure; the next call throws. The
  // unfinished record is dropped: damage may have cut it anywhere.
  fill = record_start_;
  if (batch.spans_.empty()) {
    finish(batch, fill, boundary);
    std::rethrow_exception(failure_);
  }
}

RecordTooLong::RecordTooLong(const std::string& name, uint64_t number, uint64_t offset,
                             uint64_t max_record_bytes, char separator)
    : Error(name + ": record " + std::to_string(number) + " (at byte offset " +
                std::to_string(offset) + ") is longer than the record length limit of " +
                std::to_string(max_record_bytes) + " bytes without a " +
                separator_name(separator) +
                "; raise the limit if such records are real, or check that the input is "
                "text with one record per " +
                (separator == '\n' ? "line." : "separator."),
            ErrorKind::record_too_long, max_record_bytes + 1, max_record_bytes) {}

RecordTooLong RecordReader::record_too_long(const RecordBatch& batch, size_t boundary) const {
  const uint64_t number = position_.records + batch.spans_.size() + 1;
  const uint64_t offset = boundary == kNoBoundary ? position_.input_offset + record_start_
                                                  : record_start_ - boundary;
  return RecordTooLong(source_.name(), number, offset, options_.max_record_bytes,
                       options_.separator);
}

void RecordReader::grow(RecordBatch& batch, size_t fill) {
  // Doubling keeps the copying linear in the record's length; the limit
  // plus one byte is enough to see that a record is too long.
  const size_t grown = static_cast<size_t>(
      std::min<uint64_t>(uint64_t{batch.capacity_} * 2, options_.max_record_bytes + 1));
  std::unique_ptr<char[]> bigger;
  try {
    bigger.reset(new char[grown]);
  } catch (const std::bad_alloc&) {
    const uint64_t number = position_.records + batch.spans_.size() + 1;
    throw Error("out of memory holding record " + std::to_string(number) + " of " +
                    source_.name() + ", " + std::to_string(fill) +
                    " bytes long so far without a " + separator_name(options_.separator) +
                    "; a smaller record length limit "
                    "refuses such records before memory runs out (now " +
                    std::to_string(options_.max_record_bytes) + " bytes).",
                ErrorKind::record_too_long, grown, options_.max_record_bytes);
  }
  std::memcpy(bigger.get(), batch.data_.get(), fill);
  batch.data_ = std::move(bigger);
  batch.base_ = batch.data_.get();
  batch.capacity_ = grown;
}

void RecordReader::mark_verified(RecordBatch& batch, size_t boundary) const {
  batch.verified_records_ = 0;
  const uint64_t verified = source_.verified_bytes();
  if (verified == ByteSource::kAllVerified) {
    batch.verified_records_ = batch.end_.records;
    return;
  }
  // The current input's records start at batch offset `base`, which is its
  // byte `base_offset`; earlier inputs' records here all passed their checks.
  const size_t base = boundary == kNoBoundary ? 0 : boundary;
  const uint64_t base_offset = boundary == kNoBoundary ? batch.begin_.input_offset : 0;
  if (verified < base_offset) return;  // the check in progress began in an earlier batch
  const uint64_t limit = base + (verified - base_offset);
  const auto& spans = batch.spans_;
  for (size_t i = 0; i < spans.size(); ++i) {
    if (spans[i].offset >= base && spans[i].offset + spans[i].size + 1 > limit) {
      batch.verified_records_ = batch.begin_.records + i;
      return;
    }
  }
  batch.verified_records_ = batch.end_.records;
}

void RecordReader::finish(RecordBatch& batch, size_t fill, size_t boundary) {
  const size_t consumed = record_start_;
  if (batch.mapped_) {
    mapped_at_ += consumed;
  } else {
    carry_.assign(batch.data_.get() + consumed, batch.data_.get() + fill);
  }
  position_.records += batch.spans_.size();
  position_.offset += consumed;
  position_.input_index = source_.input_index();
  position_.input_offset =
      boundary == kNoBoundary ? position_.input_offset + consumed : consumed - boundary;
  batch.end_ = position_;
  mark_verified(batch, boundary);
}


void RecordReader::skip_to(const StreamPoint& target) {
  if (target.records < position_.records) {
    throw UsageError("cannot skip back to record " + std::to_string(target.records) +
                     ": the reader is already at record " +
                     std::to_string(position_.records) + ".");
  }
  // Batches capped to end exactly on the target record.
  const size_t limit = options_.batch_records;
  RecordBatch batch;
  try {
    while (position_.records < target.records) {
      options_.batch_records =
          static_cast<size_t>(std::min<uint64_t>(limit, target.records - position_.records));
      if (!next(batch)) break;
    }
  } catch (...) {
    options_.batch_records = limit;
    throw;
  }
  options_.batch_records = limit;
  const StreamPoint& p = position_;
  // The end of one input is also the start of the next: which of the two a
  // position names depends on whether the reader had seen that end yet.
  auto later_form = [](const StreamPoint& a, const StreamPoint& b) {
    return a.input_index > b.input_index && a.input_offset == 0;
  };
  bool same_place = (p.input_index == target.input_index &&
                     p.input_offset == target.input_offset) ||
                    later_form(p, target) || later_form(target, p);
  if (p.records != target.records || p.offset != target.offset || !same_place) {
    throw Error("the input is not the one the checkpoint was taken on: record " +
                    std::to_string(p.records) + " ends at byte " + std::to_string(p.offset) +
                    " of the stream (input " + std::to_string(p.input_index + 1) + ", byte " +
                    std::to_string(p.input_offset) + "), the checkpoint says record " +
                    std::to_string(target.records) + " at byte " + std::to_string(target.offset) +
                    " (input " + std::to_string(target.input_index + 1) + ", byte " +
                    std::to_string(target.input_offset) + ").",
                ErrorKind::resume_mismatch);
  }
}

}  // namespace gdedup::io
