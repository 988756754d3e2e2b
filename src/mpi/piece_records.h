// The records of one input piece (pipeline/piece_plan.h) as one process
// would see them, read by one rank without the pieces before and after it:
// a piece of a plain file holds exactly the records that start in its byte
// range. So its reader skips the part before its first record (unless the
// byte before the range ends a record) and reads past the range's end to
// finish its last one; every record then belongs to one piece, whole, and
// the pieces' records in piece order are the input's. Other pieces (whole
// inputs) hold their input's records.
//
// A piece is read a chunk at a time (PieceReader), so that a whole input
// (a compressed file, standard input) is never held whole: the records read
// wait in PieceRecords, their decoded bytes plus 24 bytes a record (their
// place in a batch and their fingerprint; 32 with an exact set's key),
// until a round applies them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "columnar/parquet_table.h"
#include "gdedup/key_set.h"
#include "gdedup/pipeline.h"
#include "io/record_batch.h"
#include "io/record_reader.h"
#include "pipeline/batch_hasher.h"
#include "pipeline/piece_plan.h"

namespace gdedup::mpi {

struct PieceRecords {
  // Text records: the first `used` batches hold them. Fingerprint input
  // (u64) has none: its records are the fingerprints.
  std::vector<io::RecordBatch> batches;
  size_t used = 0;
  // One per record, in order: 64-bit fingerprints for a Bloom filter, or
  // an exact set's 84-bit keys (the hasher's KeyHashing::exact).
  std::vector<uint64_t> fingerprints;
  std::vector<Key84> keys;
  uint64_t bytes = 0;  // the decoded bytes read, separators included
  // Parquet input (mpi/row_group_pieces.h): the row group read, where it
  // lies, and its rows whose key is null, which have none in `fingerprints`
  // or `keys`.
  std::unique_ptr<columnar::RowGroup> rows;
  columnar::RowGroupPlace place;
  std::vector<uint64_t> missing;

  // The keys, one a record that has its key.
  uint64_t count() const { return fingerprints.size() + keys.size(); }
  uint64_t records() const { return count() + missing.size(); }
  // What they take in memory: their bytes, and of each record its place in
  // a batch (16 bytes) and its key (8 or 16).
  uint64_t held_bytes() const {
    return bytes + 16 * count() + sizeof(uint64_t) * fingerprints.size() +
           sizeof(Key84) * keys.size();
  }
};

// A record of a piece longer than the record length limit, starting at
// byte `input_offset` of its input. Only the job knows the record's number
// in the whole input (io::RecordTooLong names it): the one after every
// record applied before it.
struct PieceRecordTooLong {
  uint64_t input_offset = 0;
};

// One piece, open and read a chunk at a time: text records, or 8-byte
// fingerprints (InputFormat::kU64, whose pieces the plan cuts at multiples
// of 8 bytes, so that each starts a record).
class PieceReader {
 public:
  // Opens `piece` of the input at `path`. Throws Error as the one-process
  // reader does (a missing or changed file).
  PieceReader(const pipeline::Piece& piece, const std::string& path,
              const PipelineOptions& options);

  // Appends to `out` the piece's next records, whole batches of them until
  // `chunk_bytes` decoded bytes or the piece's end, each fingerprinted with
  // `hasher`; returns whether the piece is read to its end. Throws Error as
  // the one-process reader does (damage, a changed file), and
  // PieceRecordTooLong; either way `out` holds the records before the
  // failure.
  bool read(uint64_t chunk_bytes, pipeline::BatchHasher& hasher, PieceRecords& out);

  // The input's byte offset just past the last record read: where the
  // piece's unread records begin.
  uint64_t next_offset() const;
  // The raw (compressed) bytes read so far, for the progress line.
  uint64_t raw_bytes_read() const;

 private:
  bool read_fingerprints(uint64_t chunk_bytes, PieceRecords& out);

  // Text: none when no record starts in the piece.
  std::unique_ptr<io::RecordReader> reader_;
  // Fingerprints: the piece's bytes, of which `consumed_` are read.
  std::unique_ptr<io::ByteSource> source_;
  uint64_t consumed_ = 0;
  uint64_t stream_start_ = 0;  // the input offset the piece's stream starts at
  bool plain_ = false;         // a plain range
};

// Where the records of `piece` of the input at `path` begin: the piece's
// start when it starts a record (always, for fingerprints), else just past
// the first separator from the byte before it on (the end of the record
// that spans into it), or the input's end when no separator follows. The
// place a run that has read every piece before `piece` stands at (a
// checkpoint's position).
uint64_t first_record_at(const pipeline::Piece& piece, const std::string& path,
                         const PipelineOptions& options);

}  // namespace gdedup::mpi
