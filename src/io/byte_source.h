// A stream of input bytes that fills buffers the caller owns. Implementations:
// plain files and stdin (fd_source.h), gzip, zstd, xz, bzip2 and lz4
// (*_source.h); open_input() picks one from the first bytes of the data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "gdedup/error.h"

namespace gdedup::io {

class MappedBytes;

class ByteSource {
 public:
  virtual ~ByteSource() = default;

  // Copies up to `capacity` (> 0) bytes into buf and returns how many; 0 means
  // the end of the data, and stays 0 on further calls. Throws gdedup::Error
  // naming the input on a read failure or damaged compressed data, but only
  // after every byte decoded before the failure has been returned.
  virtual size_t read(char* buf, size_t capacity) = 0;

  // The path, or "standard input": what messages call this input.
  virtual const std::string& name() const = 0;

  // Bytes taken from the underlying file so far (compressed bytes for a
  // decoder), and the file's size where it is known (regular files): the two
  // figures a progress bar needs.
  virtual uint64_t raw_bytes_read() const = 0;
  virtual std::optional<uint64_t> raw_size() const = 0;
  // True for a decoder: the bytes handed out are not the file's own, and a
  // file offset cannot be turned into an offset of the data.
  virtual bool compressed() const { return false; }

  // How many of the bytes handed out have passed an integrity check: a
  // decoder checks a member's or frame's checksum only at its end, so the
  // bytes of the one in progress may still prove damaged. kAllVerified for
  // data that has no check (plain files).
  static constexpr uint64_t kAllVerified = UINT64_MAX;
  virtual uint64_t verified_bytes() const { return kAllVerified; }

  // Zero-copy reading (RecordReader): the rest of the data mapped into
  // memory, for a plain regular file with at least `min_bytes` (>= 1) left;
  // null otherwise, and read() goes on as before. After a mapping read() is
  // not called again: the reader says with mapped_to() how many bytes of the
  // mapping it has taken, which raw_bytes_read() counts, and taking the last
  // one runs the checks read() runs at the end, so a file changed meanwhile
  // fails the same way. mapped_to() also throws that error as soon as the
  // mapping was found cut (MappedBytes::cut).
  virtual std::shared_ptr<MappedBytes> map_rest(uint64_t /*min_bytes*/) { return nullptr; }
  // Puts back the last `bytes` read, where the source can (a regular file):
  // the next read() gives them again. False, changing nothing, otherwise.
  // Format detection reads a plain file's first bytes this way, so that
  // the file itself, not a copy of its first bytes, is read or mapped.
  virtual bool unread(size_t /*bytes*/) { return false; }
  virtual void mapped_to(uint64_t /*bytes*/) {}
};

// Thrown by decoders for damaged or truncated compressed data: the bytes
// after verified_bytes() may be wrong.
class DamagedData : public Error {
 public:
  explicit DamagedData(const std::string& what) : Error(what, ErrorKind::damaged) {}
};

enum class Compression {
  none,
  gzip,
  zstd,
  xz,
  bzip2,
  lz4,
  skippable,      // a zstd/lz4 skippable frame: the frame after it decides
  lz4_legacy,     // recognised, refused: `lz4 -l`
  unix_compress,  // recognised, refused: .Z
  lzip,           // recognised, refused
  parquet,        // recognised, refused among records: a job of Parquet files reads it
  arrow_ipc,      // recognised, refused: an Arrow IPC file ("ARROW1")
};

// Looks at the first bytes of a stream (10 are enough): gzip starts 1f 8b,
// zstd frames 28 b5 2f fd, xz fd 37 7a 58 5a 00, bzip2 "BZh" and a digit
// followed by a block or end-of-stream magic, lz4 frames 04 22 4d 18,
// Parquet files "PAR1", Arrow IPC files "ARROW1".
// Anything else, or too few bytes, is plain.
Compression detect_compression(const char* data, size_t size);

// Reads the first bytes of `raw` into `prefix` (10, or more to look past
// skippable frames at the frame that says whose stream it is: pzstd writes
// one before its data) and names the format they start. A stream of only
// skippable frames, or one too long to look past, counts as zstd.
Compression sniff_compression(ByteSource& raw, std::string& prefix);

// Opens `path` ("-" is standard input) and wraps it in the decoder its first
// bytes call for; the file name plays no part. Throws gdedup::Error naming
// the path and the reason when it cannot be opened, is a directory, or is in
// a compressed format that is recognised but not decoded.
std::unique_ptr<ByteSource> open_input(const std::string& path);

// The same detection over a source already open (a pipe, a test buffer).
std::unique_ptr<ByteSource> wrap_decoder(std::unique_ptr<ByteSource> raw);

}  // namespace gdedup::io
