// The pieces a run's inputs are read in, planned before reading starts, in
// input order: several threads read, decode and split pieces at once
// (pipeline/parallel_front_end.h), and the records of piece k+1 follow those
// of piece k.
//
// A piece is an input, a raw byte range of it and the way to open that range.
// Today there are two ways: a whole input through its decoder (compressed
// files, standard input, pipes, small files), and a byte range of a plain
// regular file. A piece of a file does not know where its records begin:
// the part before its first separator (the head) ends a record the piece
// before began, and the part after its last separator (the tail) begins one
// the next piece ends; the in-order stage joins them. Independently
// decodable members and frames of a compressed file fit the same shape: a
// range and a decoder for it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gdedup/stream_point.h"
#include "io/byte_source.h"
#include "io/range_source.h"

namespace gdedup::pipeline {

// The plain-file piece size by default. The in-order stage takes the pieces
// one after another, so a worker can be at most the batches it holds ahead
// (front_end.h): pieces no larger than that keep every worker busy, and at
// 16 MiB the cost of a piece (an open, two fstat calls, one joined record)
// is below 0.1% of reading it.
inline constexpr uint64_t kDefaultPieceBytes = uint64_t{16} << 20;

enum class PieceKind {
  kWholeInput,  // the input from its start, through open_input()
  kPlainRange,  // raw bytes [begin, end) of a plain regular file
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
  io::FileStamp stamp;     // kPlainRange: the file as planned
};

// The pieces of `inputs` from `from` on (a StreamPoint of an earlier run over
// the same inputs, or the start): plain regular files larger than
// `piece_bytes` in ranges of that size, every other input whole. Opens only
// regular files larger than `piece_bytes`, to read their first bytes; an
// input that cannot be looked at is planned whole, and opening it fails in
// its turn, after the records before it.
std::vector<Piece> plan_pieces(const std::vector<std::string>& inputs, uint64_t piece_bytes,
                               const StreamPoint& from = {});

// Opens `piece` of the input at `path`, positioned at its first byte: after
// its skipped bytes, which must end with `separator` (a record boundary), or
// the input is not the one the plan's position was taken on.
std::unique_ptr<io::ByteSource> open_piece(const Piece& piece, const std::string& path,
                                           char separator);

}  // namespace gdedup::pipeline
