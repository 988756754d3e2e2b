// Format detection: read the first bytes, then replay them in front of the
// rest so that pipes, which cannot seek back, work like files. A format
// recognised but not decoded is refused: its bytes must never pass for
// records.
#include <algorithm>
#include <cstring>
#include <string>

#include "io/byte_source.h"
#include "io/fd_source.h"
#include "gdedup/error.h"
#include "io/bzip2_source.h"
#include "io/gzip_source.h"
#include "io/lz4_source.h"
#include "io/xz_source.h"
#include "io/zstd_source.h"

namespace gdedup::io {

namespace {

// Enough for every magic below (bzip2's is the longest).
constexpr size_t kMagicBytes = 10;
// How far detection reads past skippable frames before assuming zstd.
constexpr size_t kMaxSniff = size_t{64} << 10;

// Hands out `prefix`, then whatever `rest` holds.
class PrefixedSource final : public ByteSource {
 public:
  PrefixedSource(std::string prefix, std::unique_ptr<ByteSource> rest)
      : prefix_(std::move(prefix)), rest_(std::move(rest)) {}

  size_t read(char* buf, size_t capacity) override {
    size_t n = 0;
    if (pos_ < prefix_.size()) {
      n = std::min(capacity, prefix_.size() - pos_);
      std::memcpy(buf, prefix_.data() + pos_, n);
      pos_ += n;
      if (pos_ < prefix_.size() || n == capacity) return n;
    }
    // Top up the same call: an exception here would hide the prefix bytes
    // already copied, so a failure waits for the next call.
    try {
      return n + rest_->read(buf + n, capacity - n);
    } catch (...) {
      if (n == 0) throw;
      return n;
    }
  }
  const std::string& name() const override { return rest_->name(); }
  uint64_t raw_bytes_read() const override { return rest_->raw_bytes_read(); }
  std::optional<uint64_t> raw_size() const override { return rest_->raw_size(); }

 private:
  std::string prefix_;
  size_t pos_ = 0;
  std::unique_ptr<ByteSource> rest_;
};

}  // namespace

Compression detect_compression(const char* data, size_t size) {
  const auto* b = reinterpret_cast<const unsigned char*>(data);
  auto starts = [&](const char* magic, size_t n) {
    return size >= n && std::memcmp(data, magic, n) == 0;
  };
  if (starts("\x1f\x8b", 2)) return Compression::gzip;
  if (starts("\x28\xb5\x2f\xfd", 4)) return Compression::zstd;
  // zstd and lz4 share the skippable frame magics 0x184D2A50-5F.
  if (size >= 4 && (b[0] & 0xf0) == 0x50 && b[1] == 0x2a && b[2] == 0x4d && b[3] == 0x18) {
    return Compression::skippable;
  }
  if (starts("\xfd\x37\x7a\x58\x5a\x00", 6)) return Compression::xz;
  // "BZh", the block size '1'-'9', then the magic of the first block (pi) or
  // of the end of an empty stream (sqrt pi): ten bytes no text file starts with.
  if (size >= 10 && starts("BZh", 3) && b[3] >= '1' && b[3] <= '9' &&
      (std::memcmp(data + 4, "\x31\x41\x59\x26\x53\x59", 6) == 0 ||
       std::memcmp(data + 4, "\x17\x72\x45\x38\x50\x90", 6) == 0)) {
    return Compression::bzip2;
  }
  if (starts("\x04\x22\x4d\x18", 4)) return Compression::lz4;
  if (starts("\x02\x21\x4c\x18", 4)) return Compression::lz4_legacy;
  if (starts("\x1f\x9d", 2)) return Compression::unix_compress;
  if (starts("LZIP", 4)) return Compression::lzip;
  if (starts("PAR1", 4)) return Compression::parquet;
  if (starts("ARROW1", 6)) return Compression::arrow_ipc;
  return Compression::none;
}

namespace {

// Reads from `raw` until `prefix` holds `size` bytes or the input ends.
void read_up_to(ByteSource& raw, std::string& prefix, size_t size) {
  char buf[256];
  while (prefix.size() < size) {
    const size_t n = raw.read(buf, std::min(sizeof buf, size - prefix.size()));
    if (n == 0) return;
    prefix.append(buf, n);
  }
}

}  // namespace

Compression sniff_compression(ByteSource& raw, std::string& prefix) {
  size_t at = 0;
  for (;;) {
    read_up_to(raw, prefix, at + kMagicBytes);
    const Compression kind = detect_compression(prefix.data() + at, prefix.size() - at);
    if (at == 0 && kind != Compression::skippable) return kind;
    if (kind != Compression::skippable) {
      // Only skippable frames so far: the next frame decides; zstd's
      // decoder gives the better message for anything else.
      return kind == Compression::lz4 ? Compression::lz4 : Compression::zstd;
    }
    read_up_to(raw, prefix, at + 8);
    if (prefix.size() < at + 8) return Compression::zstd;  // reported as truncated
    const auto* len = reinterpret_cast<const unsigned char*>(prefix.data() + at + 4);
    const uint64_t skip = 8 + (uint64_t{len[0]} | uint64_t{len[1]} << 8 |
                               uint64_t{len[2]} << 16 | uint64_t{len[3]} << 24);
    // A frame too long to look past is taken for zstd's, by far the commoner.
    if (at + skip > kMaxSniff) return Compression::zstd;
    at += skip;
    read_up_to(raw, prefix, at);
    if (prefix.size() < at + 1) return Compression::zstd;
  }
}

namespace {

// What to tell the user about a format gdedup does not decode.
std::string refusal(Compression kind) {
  switch (kind) {
    case Compression::lz4_legacy:
      return "is in lz4's legacy format (lz4 -l), which gdedup does not read; recompress it "
             "with plain lz4, or pipe it in through 'lz4 -dc'";
    case Compression::unix_compress:
      return "is compressed with Unix compress (.Z), which gdedup does not read; pipe it in "
             "through 'gzip -dc'";
    case Compression::lzip:
      return "is compressed with lzip, which gdedup does not read; pipe it in through "
             "'lzip -dc'";
    case Compression::parquet:
      return "is a Parquet file, which a job reads only when all its inputs are Parquet "
             "files, keyed by a column; it cannot be read as records beside the others";
    case Compression::arrow_ipc:
      // Its bytes would pass for records: a binary file read as lines.
      return "is an Arrow IPC file, which gdedup does not read; write its table as Parquet "
             "(pyarrow: pq.write_table(pa.ipc.open_file(PATH).read_all(), OUT)) and key "
             "that by a column";
    default:
      return "";
  }
}

}  // namespace

std::unique_ptr<DecoderSource> make_decoder(Compression kind, std::unique_ptr<ByteSource>& raw) {
  const std::string why_not = refusal(kind);
  if (!why_not.empty()) {
    throw Error(raw->name() + " " + why_not + ".", ErrorKind::unsupported_format);
  }
  switch (kind) {
    case Compression::gzip:
      return std::make_unique<GzipSource>(std::move(raw));
    case Compression::zstd:
    case Compression::skippable:
      return std::make_unique<ZstdSource>(std::move(raw));
    case Compression::xz:
      return std::make_unique<XzSource>(std::move(raw));
    case Compression::bzip2:
      return std::make_unique<Bzip2Source>(std::move(raw));
    case Compression::lz4:
      return std::make_unique<Lz4Source>(std::move(raw));
    default:
      return nullptr;
  }
}

std::unique_ptr<ByteSource> wrap_decoder(std::unique_ptr<ByteSource> raw) {
  // A pipe may deliver the magic in pieces: read until enough or the end.
  std::string prefix;
  const Compression kind = sniff_compression(*raw, prefix);
  if (kind == Compression::none && raw->unread(prefix.size())) return raw;
  std::unique_ptr<ByteSource> replay =
      std::make_unique<PrefixedSource>(std::move(prefix), std::move(raw));
  std::unique_ptr<DecoderSource> decoder = make_decoder(kind, replay);
  if (decoder) return decoder;
  return replay;
}

std::unique_ptr<ByteSource> open_input(const std::string& path) {
  if (path == "-") return wrap_decoder(FdSource::standard_input());
  return wrap_decoder(FdSource::open(path));
}

}  // namespace gdedup::io
