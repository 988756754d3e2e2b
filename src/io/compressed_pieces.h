// One compressed file cut into pieces that decode independently, so that
// several workers can decompress one big file at once. A piece is a range of
// raw (compressed) bytes that starts where a gzip member or zstd frame starts:
//  - BGZF (gzip members whose extra field "BC" gives the member's length):
//    the lengths are walked, two small reads per member, nothing decoded;
//  - zstd: each frame's length is walked from its block headers (one 3-byte
//    read per block), skippable frames (pzstd's, a seekable file's seek
//    table) as frames of their own;
//  - other gzip (`cat a.gz b.gz`): no member says its length, so the file is
//    scanned from about each piece size on for the next gzip header that
//    also starts a valid deflate stream (a trial decode of 16 KiB);
//  - single-member gzip, xz, bzip2, lz4 and plain data: one piece, the whole
//    file (their sizes are not written down anywhere cheap to read).
// A boundary is a claim until the piece before it proves it: a piece decodes
// from its start and ends only at a member or frame boundary that is the
// start of a later piece (or at the end of the file). If the member in
// progress runs past the piece's end (a lying BSIZE, a gzip header pattern
// inside a member's data), the piece reads on into the next ones, and
// next_piece() says which piece continues its data: the ones skipped started
// at a false boundary and their bytes and errors are dropped. So the
// decoded bytes, joined in that order, are exactly the whole-file decoder's,
// and the same damage gives the same error: splitting only changes speed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "io/byte_source.h"
#include "io/random_access.h"

namespace gdedup::io {

// Raw bytes [begin, end) of a file, offsets counted from its first byte.
struct RawRange {
  uint64_t begin = 0;
  uint64_t end = 0;
};

struct PiecePlan {
  Compression codec = Compression::none;  // as open_input() would detect it
  // In file order, each starting where the one before ends, the first at 0
  // and the last ending at the input's size: at least one, even when empty.
  std::vector<RawRange> ranges;
};

// Plans pieces of at least `target_bytes` compressed bytes each (the last
// may be shorter) where the format allows it; otherwise one piece. Reads
// headers only: for 1 GB of BGZF or zstd, tens of thousands of small reads;
// for other gzip, one read of the file after the first piece. Never throws
// for damaged data (the pieces' decoders report it as the whole-file decoder
// would); throws gdedup::Error on a failed read or a target of 0.
PiecePlan find_pieces(const RandomAccessInput& input, uint64_t target_bytes);

class DecoderSource;
class PieceBytes;

// The decoded bytes of one piece, with the whole-file decoder's checks
// (CRC-32 and length of each gzip member, zstd checksums) and messages
// (ErrorKind::damaged, the file's name and the byte offset in the file).
// At its end, and before reporting damage, it checks that the file still
// has the size and time find_pieces() saw: one rewritten meanwhile fails
// with ErrorKind::input_changed. Reads positionally, so any number of
// pieces of one RandomAccessInput may be read at once, one per thread.
class CompressedPieceSource final : public ByteSource {
 public:
  // Piece `index` of `plan`, which find_pieces() made from `input`; both
  // must outlive the source.
  CompressedPieceSource(const RandomAccessInput& input, std::shared_ptr<const PiecePlan> plan,
                        size_t index);
  ~CompressedPieceSource() override;
  CompressedPieceSource(const CompressedPieceSource&) = delete;
  CompressedPieceSource& operator=(const CompressedPieceSource&) = delete;

  size_t read(char* buf, size_t capacity) override;
  const std::string& name() const override;
  // Compressed bytes of this piece read so far, and the piece's size.
  uint64_t raw_bytes_read() const override;
  std::optional<uint64_t> raw_size() const override;
  bool compressed() const override;
  uint64_t verified_bytes() const override;

  // Once read() has returned 0: the index of the piece whose data follows
  // this one's, or the number of pieces when this one ran to the end of the
  // file. Pieces between this one and that one are to be dropped.
  size_t next_piece() const;

 private:
  const RandomAccessInput& input_;
  std::shared_ptr<const PiecePlan> plan_;
  size_t index_;
  PieceBytes* raw_ = nullptr;           // owned by stream_
  DecoderSource* decoder_ = nullptr;    // stream_ itself; null for plain data
  std::unique_ptr<ByteSource> stream_;  // the decoder, or the raw range itself
  bool checked_ = false;                // the end-of-piece check passed
};

}  // namespace gdedup::io
