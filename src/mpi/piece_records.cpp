#include "mpi/piece_records.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

#include "fs/file_ops.h"
#include "gdedup/error.h"
#include "io/input_changed.h"
#include "io/input_file.h"
#include "io/record_reader.h"

namespace gdedup::mpi {
namespace {

constexpr uint64_t kScanBytes = uint64_t{64} << 10;

fs::File open_input_file(const std::string& path) {
  fs::File file;
  if (const int err = fs::open_for_reading(path, file)) {
    throw io::cannot_open_input(path, err);
  }
  return file;
}

// Throws input_changed unless `file` still has the size and modification
// time it was planned with; `at`: where it was being read.
void check_unchanged(const fs::File& file, const io::FileStamp& stamp, uint64_t at) {
  fs::FileStatus status;
  if (const int err = fs::status_of(file.fd(), status)) {
    throw Error("cannot read input " + file.name() + ": " + fs::error_text(err), ErrorKind::io);
  }
  if (status.size == stamp.size && status.mtime_ns == stamp.mtime_ns) return;
  throw io::input_changed_error(file.name(), stamp.size, status.size,
                                "at byte offset " + std::to_string(at));
}

// The position just past the first `separator` in [from, limit) of `file`,
// or nullopt when there is none. `limit` is at most the file's size as
// planned (`stamp`): a file that ends before it changed since.
std::optional<uint64_t> after_separator(const fs::File& file, uint64_t from, uint64_t limit,
                                        char separator, const io::FileStamp& stamp) {
  std::vector<char> buffer(kScanBytes);
  for (uint64_t at = from; at < limit;) {
    const uint64_t want = std::min<uint64_t>(kScanBytes, limit - at);
    const int64_t got = fs::read_at(file.fd(), buffer.data(), want, at);
    if (got < 0) {
      throw Error("cannot read " + file.name() + " at byte offset " + std::to_string(at) + ": " +
                  fs::error_text(errno));
    }
    if (got == 0) {
      // Cut short since it was planned. Not a piece without records: those
      // after this place would be lost without a word.
      check_unchanged(file, stamp, at);
      throw Error("input " + file.name() + " ended at byte offset " + std::to_string(at) +
                      " while it was being read, before its planned size of " +
                      std::to_string(stamp.size) + " bytes",
                  ErrorKind::input_changed);
    }
    if (const void* hit = std::memchr(buffer.data(), separator, static_cast<size_t>(got))) {
      return at + static_cast<uint64_t>(static_cast<const char*>(hit) - buffer.data()) + 1;
    }
    at += static_cast<uint64_t>(got);
  }
  return std::nullopt;
}

// The raw range holding the records that start in piece's range; empty
// (begin == end) when none does.
pipeline::Piece records_starting_in(const pipeline::Piece& piece, const std::string& path,
                                    const PipelineOptions& options) {
  const fs::File file = open_input_file(path);
  const char separator = options.record_separator;
  pipeline::Piece out = piece;
  out.starts_record = true;
  if (!piece.starts_record) {
    const std::optional<uint64_t> first =
        after_separator(file, piece.begin - 1, piece.end, separator, piece.stamp);
    out.begin = first.value_or(piece.end);
  }
  if (!piece.ends_input && out.begin < piece.end) {
    // The last record ends at the first separator from the range's last byte
    // on. One longer than the limit is cut there, and the reader refuses it.
    const uint64_t limit = std::min(piece.stamp.size, piece.end + options.max_record_bytes + 1);
    out.end = after_separator(file, piece.end - 1, limit, separator, piece.stamp).value_or(limit);
  }
  out.end = std::max(out.begin, out.end);
  // A range's reader checks the file again; a piece without records has
  // none, and a file changed since it was planned must not pass for one.
  check_unchanged(file, piece.stamp, out.begin);
  return out;
}

}  // namespace

uint64_t first_record_at(const pipeline::Piece& piece, const std::string& path,
                         const PipelineOptions& options) {
  if (piece.starts_record || options.format == InputFormat::kU64) return piece.begin;
  const fs::File file = open_input_file(path);
  return after_separator(file, piece.begin - 1, piece.stamp.size, options.record_separator,
                         piece.stamp)
      .value_or(piece.stamp.size);
}

PieceReader::PieceReader(const pipeline::Piece& piece, const std::string& path,
                         const PipelineOptions& options) {
  plain_ = piece.kind == pipeline::PieceKind::kPlainRange;
  stream_start_ = piece.begin;
  if (options.format == InputFormat::kU64) {
    // Fingerprints have no separator to look for: a range is read as it
    // is, and a whole input from its start, skipping a resume's bytes.
    pipeline::Piece from = piece;
    from.starts_record = false;
    if (!plain_) from.begin = 0;
    source_ = pipeline::open_piece(from, path, options.record_separator).source;
    std::vector<char> skipped(static_cast<size_t>(std::min<uint64_t>(piece.begin, 1 << 20)));
    for (uint64_t left = plain_ ? 0 : piece.begin; left > 0;) {
      const size_t got = source_->read(skipped.data(), std::min<uint64_t>(left, skipped.size()));
      if (got == 0) {
        throw Error("the input is not the one the checkpoint was taken on: " + path +
                        " ends before the checkpoint's byte " + std::to_string(piece.begin),
                    ErrorKind::resume_mismatch);
      }
      left -= got;
    }
    return;
  }
  pipeline::Piece range = piece;
  if (piece.kind == pipeline::PieceKind::kPlainRange) {
    range = records_starting_in(piece, path, options);
    if (range.begin == range.end) return;
  }
  // A plain range's stream starts at its first record; a whole input's
  // after the bytes a resume skips.
  stream_start_ = range.begin;
  pipeline::OpenPiece opened = pipeline::open_piece(range, path, options.record_separator);
  io::ReaderOptions reading;
  reading.batch_records = static_cast<size_t>(options.batch_records);
  reading.max_record_bytes = options.max_record_bytes;
  reading.separator = options.record_separator;
  // Read, not mapped: the records wait for their round (the exchange, then
  // the output), and a mapping's pages vanish when the file is truncated
  // meanwhile, after the reader checked it: kept records would be written
  // as zeros. A copy read and checked stays the bytes that were checked.
  reading.min_mapped_bytes = UINT64_MAX;
  reader_ = std::make_unique<io::RecordReader>(std::move(opened.source), reading);
}

uint64_t PieceReader::next_offset() const {
  return stream_start_ + (reader_ ? reader_->position().offset : consumed_);
}

uint64_t PieceReader::raw_bytes_read() const {
  // A plain range's raw bytes are its records' (its source also counts
  // those it mapped ahead); a whole input's, its decoder's.
  if (plain_) return next_offset() - stream_start_;
  if (source_) return source_->raw_bytes_read();
  return reader_ ? reader_->source().raw_bytes_read() : 0;
}

bool PieceReader::read_fingerprints(uint64_t chunk_bytes, PieceRecords& out) {
  // A chunk is whole fingerprints, read at most 1 MiB at a time.
  constexpr uint64_t kBlock = uint64_t{1} << 20;
  std::vector<char> block;
  const uint64_t from = consumed_;
  bool ended = false;
  while (!ended && consumed_ - from < chunk_bytes) {
    const uint64_t left = chunk_bytes - (consumed_ - from);
    block.resize(static_cast<size_t>(left >= kBlock ? kBlock : (left + 7) / 8 * 8));
    size_t have = 0;
    while (have < block.size()) {
      const size_t got = source_->read(block.data() + have, block.size() - have);
      if (got == 0) {
        ended = true;
        break;
      }
      have += got;
    }
    const size_t whole = have / 8 * 8;
    for (size_t at = 0; at < whole; at += 8) {
      uint64_t fingerprint;
      std::memcpy(&fingerprint, block.data() + at, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
      fingerprint = __builtin_bswap64(fingerprint);
#endif
      out.fingerprints.push_back(fingerprint);
    }
    consumed_ += whole;
    out.bytes += whole;
    if (whole != have) {
      // Only at the input's end: as one process says it.
      const uint64_t size = stream_start_ + consumed_ + (have - whole);
      throw Error(source_->name() + " is not a whole number of 64-bit fingerprints: it has " +
                      std::to_string(size) + " bytes, " + std::to_string(size % 8) +
                      " more than a multiple of 8.",
                  ErrorKind::damaged);
    }
  }
  return ended;
}

bool PieceReader::read(uint64_t chunk_bytes, pipeline::BatchHasher& hasher, PieceRecords& out) {
  if (source_) return read_fingerprints(chunk_bytes, out);
  if (!reader_) return true;
  const uint64_t from = reader_->position().offset;
  try {
    while (reader_->position().offset - from < chunk_bytes) {
      if (out.used == out.batches.size()) out.batches.emplace_back();
      io::RecordBatch& batch = out.batches[out.used];
      if (!reader_->next(batch)) {
        out.bytes += reader_->position().offset - from;
        return true;
      }
      ++out.used;
      for (size_t i = 0; i < batch.size(); ++i) {
        if (hasher.exact()) {
          out.keys.push_back(hasher.key(batch[i]));
        } else {
          out.fingerprints.push_back(hasher.fingerprint(batch[i]));
        }
      }
    }
  } catch (const io::RecordTooLong&) {
    // The reader stopped after the records before it: its position is where
    // the long one starts.
    out.bytes += reader_->position().offset - from;
    throw PieceRecordTooLong{next_offset()};
  }
  out.bytes += reader_->position().offset - from;
  return false;
}

}  // namespace gdedup::mpi
