// Splits the byte stream of one or more inputs into records (the bytes
// between separators: '\n', or '\0' for NUL-separated data) and hands them
// out in batches of bounded size.
//
// Only the separator is special: CR, NUL or '\n' (whichever is not the
// separator) and invalid UTF-8 stay inside records, an empty line is an empty
// record, and the unterminated last record of each input is a record of its
// own. A record longer than the batch size gets a batch
// grown to hold it; the next batch returns to the configured size. A record
// longer than max_record_bytes is an error, found before more than that
// many of its bytes are held.
//
// Memory: two buffers of about batch_bytes (the batch being filled and the
// unfinished record carried to the next) plus 16 bytes per record in flight.
// Speed: separators are found with SIMD (separator_scan.h). A large plain
// file is mapped, not copied (min_mapped_bytes): the copy out of the page
// cache cost more than the split.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "gdedup/error.h"
#include "io/multi_source.h"
#include "io/record_batch.h"

namespace gdedup::io {

// The longest record read by default: far past any real line, and small
// enough that a file with no newline (/dev/zero, a binary file) is refused
// long before it exhausts memory.
inline constexpr uint64_t kDefaultMaxRecordBytes = uint64_t{64} << 20;

struct ReaderOptions {
  size_t batch_bytes = size_t{8} << 20;   // bytes per batch, records included
  size_t batch_records = size_t{1} << 20;  // records per batch
  // A longer record (without its separator) stops the reading: the records
  // before it are handed out, then next() throws gdedup::Error naming it.
  uint64_t max_record_bytes = kDefaultMaxRecordBytes;
  // The byte that ends a record: '\n' for lines, '\0' for the output of
  // `find -print0` and other tools' -z.
  char separator = '\n';
  // Plain regular files with at least this many bytes left are mapped
  // rather than read (io/mapped_bytes.h): their batches point into the
  // mapping, and hold the records of that input only. UINT64_MAX: never.
  uint64_t min_mapped_bytes = kDefaultMinMappedBytes;
};

// What messages call a separator: "newline", "NUL" or the byte in hex.
std::string separator_name(char separator);

// A record longer than the record length limit: record `number` (from 1, all
// inputs together) of input `name`, starting at byte `offset` of it. Its own
// type so that a stage that knows the record's place in the whole stream
// better than the reader can say it again (pipeline/parallel_front_end.cpp).
class RecordTooLong : public Error {
 public:
  RecordTooLong(const std::string& name, uint64_t number, uint64_t offset,
                uint64_t max_record_bytes, char separator);
};

class RecordReader {
 public:
  RecordReader(MultiSource source, ReaderOptions options = {});
  RecordReader(std::unique_ptr<ByteSource> source, ReaderOptions options = {});

  // Refills `batch` with the next records (its old contents are dropped and
  // its memory reused). Returns false once the stream has ended, leaving the
  // batch empty. On a read error or damaged input, the records complete
  // before the failure come first; the next call throws gdedup::Error. A line
  // cut short by damage is not handed out.
  bool next(RecordBatch& batch);

  // Resuming: reads past the records before `target` (a position taken from
  // an earlier run's batch) without handing them out. The inputs are read
  // and decoded again, so this costs a read of the skipped part. Throws
  // gdedup::Error when the stream does not reach `target` or reaches it at
  // other offsets: the inputs are not the ones the position was taken on.
  void skip_to(const StreamPoint& target);

  // Position after the last batch handed out.
  const StreamPoint& position() const { return position_; }
  const MultiSource& source() const { return source_; }

 private:
  void prepare(RecordBatch& batch, size_t needed);
  // Adds the records completed in batch bytes [scan_, fill); stops early at
  // the record limit.
  void split(RecordBatch& batch, size_t fill);
  // Called in a catch block: keeps the failure for the next call and cuts
  // the batch after its last whole record; with no record in it, finishes
  // the batch and throws now.
  void fail(RecordBatch& batch, size_t& fill, size_t boundary);
  // The failure for the unfinished record at record_start_, longer than the
  // limit; `boundary` as for finish().
  RecordTooLong record_too_long(const RecordBatch& batch, size_t boundary) const;
  // Grows the batch buffer for the one record that fills it.
  void grow(RecordBatch& batch, size_t fill);
  // Empties `batch` to hold the records after position_.
  void begin_batch(RecordBatch& batch) const;
  // Maps the current input, when it can be (ReaderOptions::min_mapped_bytes).
  void map_input();
  // next() from the mapping: a batch that points into it.
  bool next_mapped(RecordBatch& batch);
  // Sets batch.verified_records_ from the source's verified bytes.
  void mark_verified(RecordBatch& batch, size_t boundary) const;
  // Moves the unfinished record to carry_ and advances the position;
  // `boundary` is where the current input began in the batch, if it did.
  void finish(RecordBatch& batch, size_t fill, size_t boundary);

  MultiSource source_;
  ReaderOptions options_;
  StreamPoint position_;
  std::vector<char> carry_;  // bytes read but not yet in a batch
  size_t record_start_ = 0;  // first byte of the unfinished record
  size_t scan_ = 0;          // bytes checked for the separator so far
  bool done_ = false;
  std::exception_ptr failure_;
  // The current input's mapping, and the bytes of it handed out so far;
  // fresh_input_ while nothing of the current input has been read.
  std::shared_ptr<MappedBytes> mapped_;
  uint64_t mapped_at_ = 0;
  bool fresh_input_ = true;
};

}  // namespace gdedup::io
