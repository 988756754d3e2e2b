// The pieces a run's inputs are read in, planned before reading starts, in
// input order: several threads read, decode and split pieces at once
// (pipeline/parallel_front_end.h), and the records of piece k+1 follow those
// of piece k.
//
// A piece is an input, a raw byte range of it and the way to open that range:
// a whole input through its decoder (standard input, pipes, small files,
// compressed files that cannot be cut), a byte range of a plain regular
// file, or a part of a compressed file that decodes on its own (gzip
// members, BGZF blocks, zstd frames: io/compressed_pieces.h). A piece of a
// file does not know where its records begin: the part before its first
// separator (the head) ends a record the piece before began, and the part
// after its last separator (the tail) begins one the next piece ends; the
// in-order stage joins them.
//
// A compressed part's start is a claim until the part before it has been
// decoded (compressed_pieces.h): a part whose data runs on past its planned
// end says which part continues it (PieceEnd), and the parts in between are
// dropped by the in-order stage.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gdedup/stream_point.h"
#include "io/byte_source.h"
#include "io/compressed_pieces.h"
#include "io/range_source.h"

namespace gdedup::pipeline {

// The plain-file piece size by default. The in-order stage takes the pieces
// one after another, so a worker can be at most the batches it holds ahead
// (front_end.h): pieces no larger than that keep every worker busy, and at
// 16 MiB the cost of a piece (an open, two fstat calls, one joined record)
// is below 0.1% of reading it.
inline constexpr uint64_t kDefaultPieceBytes = uint64_t{16} << 20;

// The compressed bytes of a part of a compressed file by default: 4 MiB of
// gzip or zstd holds 10 to 20 MiB of URL text (2.5-5x), about what a
// worker's batches hold ahead, for the same reason as above.
inline constexpr uint64_t kDefaultCompressedPieceBytes = uint64_t{4} << 20;

// Compressed files are cut into parts only when the job has fewer inputs
// left than this many per worker: with more, whole files keep every worker
// busy, and cutting a gzip file that does not say where its members start
// costs a read of all of it before any work.
inline constexpr size_t kInputsPerWorkerWithoutParts = 2;

enum class PieceKind {
  kWholeInput,  // the input from its start, through open_input()
  kPlainRange,  // raw bytes [begin, end) of a plain regular file
  kCompressedPart,  // part `part` of `parts`, a compressed regular file's plan
  // Row groups [begin, end) of a Parquet file, read by the job's Parquet
  // reader (planned by the ranks of an MPI job: mpi/row_group_pieces.h).
  kRowGroups,
};

struct Piece {
  size_t input = 0;  // index into the run's inputs
  PieceKind kind = PieceKind::kWholeInput;
  // kPlainRange: the raw range. kWholeInput: `begin` decoded bytes are read
  // and dropped first (a resume that starts inside the input).
  uint64_t begin = 0;
  uint64_t end = 0;
  // The piece begins on a record boundary (the start of its input, or a
  // resume's position): it has no head to join to the piece before.
  bool starts_record = true;
  bool ends_input = true;  // the last piece of its input: no tail
  io::FileStamp stamp;     // kPlainRange, kCompressedPart: the file as planned
  // kCompressedPart: the file's parts, shared by its pieces, and which one
  // this is. The pieces of part 0 ... N-1 follow one another in the plan.
  std::shared_ptr<const io::PiecePlan> parts;
  size_t part = 0;
};

// How the pieces are cut: see kDefaultPieceBytes and its neighbours.
struct PieceSizes {
  uint64_t plain = kDefaultPieceBytes;
  uint64_t compressed = kDefaultCompressedPieceBytes;
  // Cut compressed files into parts (see kInputsPerWorkerWithoutParts).
  bool compressed_parts = true;
};

// An open piece. For a kCompressedPart, `next_part` is set once `source`
// has returned 0 (it may be closed by then): the part whose data follows
// (io::CompressedPieceSource::next_piece()).
struct OpenPiece {
  std::unique_ptr<io::ByteSource> source;
  std::shared_ptr<const std::optional<size_t>> next_part;
};

// The pieces of `inputs` from `from` on (a StreamPoint of an earlier run over
// the same inputs, or the start): plain regular files larger than
// `sizes.plain` in ranges of that size; gzip and zstd regular files larger
// than `sizes.compressed` whose members or frames allow it, when
// `sizes.compressed_parts`, in parts of at least that many compressed bytes
// (not a file a resume starts inside: its decoder must skip to the
// position); every other input whole. Opens only regular files larger than
// a piece, to read their first bytes (and a compressed file's headers); an
// input that cannot be looked at is planned whole, and opening it fails in
// its turn, after the records before it.
std::vector<Piece> plan_pieces(const std::vector<std::string>& inputs, const PieceSizes& sizes,
                               const StreamPoint& from = {});

// Opens `piece` of the input at `path`, positioned at its first byte: after
// its skipped bytes, which must end with `separator` (a record boundary), or
// the input is not the one the plan's position was taken on. A compressed
// part's file is opened anew and must still be the one planned (size and
// modification time), or ErrorKind::input_changed.
OpenPiece open_piece(const Piece& piece, const std::string& path, char separator);

// Where the stream goes on after `pieces[k]`, once its source has returned 0:
// k + 1, except for a compressed part whose data ran on past its planned
// end, for which it is the index of the piece that continues it (the pieces
// in between are to be dropped), or the index after the file's last part
// when it ran to the file's end.
size_t piece_after(const std::vector<Piece>& pieces, size_t k, const OpenPiece& opened);

}  // namespace gdedup::pipeline
