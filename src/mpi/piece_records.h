// The records of one input piece (pipeline/piece_plan.h) as one process
// would see them, read by one rank without the pieces before and after it:
// a piece of a plain file holds exactly the records that start in its byte
// range. So its reader skips the part before its first record (unless the
// byte before the range ends a record) and reads past the range's end to
// finish its last one; every record then belongs to one piece, whole, and
// the pieces' records in piece order are the input's. Other pieces (whole
// inputs) hold their input's records.
//
// Memory: the piece's decoded bytes plus 24 bytes a record (its place in a
// batch and its fingerprint), for as long as the round lasts: pieces of
// plain files are PipelineOptions::piece_bytes, but a compressed input is
// one piece, held whole (docs/SCALE-OUT.md, "Memory").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gdedup/pipeline.h"
#include "io/record_batch.h"
#include "pipeline/key_hasher.h"
#include "pipeline/piece_plan.h"

namespace gdedup::mpi {

struct PieceRecords {
  std::vector<io::RecordBatch> batches;  // the first `used` hold the piece's records
  size_t used = 0;
  std::vector<uint64_t> fingerprints;    // one per record, in order
  uint64_t bytes = 0;                    // the decoded bytes read, separators included
};

// A record of a piece longer than the record length limit: `records` whole
// records of the piece come before it, and it starts at byte `input_offset`
// of its input. Only the job knows the record's number in the whole input
// (io::RecordTooLong names it), so read_piece says where it lies instead.
struct PieceRecordTooLong {
  uint64_t records = 0;
  uint64_t input_offset = 0;
};

// Reads `piece` of the input at `path` into `out` (its memory reused) and
// fingerprints every record with `hasher`. Throws Error as the one-process
// reader does (a missing or changed file, damage), and PieceRecordTooLong;
// either way `out` holds the records before the failure.
void read_piece(const pipeline::Piece& piece, const std::string& path,
                const PipelineOptions& options, pipeline::KeyHasher& hasher, PieceRecords& out);

// Where the records of `piece` of the input at `path` begin: the piece's
// start when it starts a record, else just past the first `separator` from
// the byte before it on (the end of the record that spans into it), or the
// input's end when no separator follows. The place a run that has read
// every piece before `piece` stands at (a checkpoint's position).
uint64_t first_record_at(const pipeline::Piece& piece, const std::string& path, char separator);

}  // namespace gdedup::mpi
