#include "io/gzip_source.h"

#include <algorithm>
#include <cstdint>
#include <limits>

#if GDEDUP_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#else
#include <zlib.h>
#endif

#include "gdedup/error.h"

namespace gdedup::io {

// Decoders wait for a whole header (ISA-L) or both magic bytes (zlib) before
// judging it, so a byte or a few of trailing garbage would read as a
// truncated member: the magic is checked here, byte by byte as it arrives.
void GzipSource::check_magic() const {
  static constexpr unsigned char kMagic[2] = {0x1f, 0x8b};
  for (size_t i = 0; magic_seen_ + i < 2 && in_pos_ + i < in_end_; ++i) {
    if (static_cast<unsigned char>(in_[in_pos_ + i]) != kMagic[magic_seen_ + i]) {
      throw_damaged("gzip", "no gzip member starts here");
    }
  }
}

// `gzip -t` accepts zeros after the last member (tape blocks, files
// preallocated then filled): they end the data. Anything after them that is
// not a zero is damage.
bool GzipSource::at_zero_padding() {
  if (in_[in_pos_] != 0) return false;
  do {
    for (; in_pos_ < in_end_; ++in_pos_) {
      if (in_[in_pos_] != 0) {
        throw_damaged("gzip", "a non-zero byte in the zero padding after the last member");
      }
    }
  } while (refill());
  return true;
}

#if GDEDUP_HAVE_ISAL

namespace {

const char* isal_reason(int ret) {
  switch (ret) {
    case ISAL_INVALID_BLOCK: return "invalid deflate block";
    case ISAL_INVALID_SYMBOL: return "invalid deflate code";
    case ISAL_INVALID_LOOKBACK: return "invalid distance too far back";
    case ISAL_INVALID_WRAPPER: return "incorrect gzip header";
    case ISAL_UNSUPPORTED_METHOD: return "unknown compression method";
    case ISAL_INCORRECT_CHECKSUM: return "CRC-32 or length check failed";
    default: return "invalid data";
  }
}

}  // namespace

// inflate_state carries a 64 KiB history buffer: on the heap, not in the
// object that owns it.
struct GzipSource::Stream {
  inflate_state s;
};

GzipSource::GzipSource(std::unique_ptr<ByteSource> raw)
    : DecoderSource(std::move(raw)), stream_(std::make_unique<Stream>()) {
  isal_inflate_init(&stream_->s);
}

GzipSource::~GzipSource() = default;

void GzipSource::decode(char* buf, size_t capacity, size_t& produced) {
  inflate_state& s = stream_->s;
  constexpr size_t kMaxU32 = std::numeric_limits<uint32_t>::max();
  while (produced < capacity) {
    if (!in_member_ && piece_ends_here()) return;
    if (in_pos_ == in_end_) refill();
    if (!in_member_) {
      if (in_pos_ == in_end_ || at_zero_padding()) return;  // the end, on a member boundary
      // Each member starts afresh: its own header, CRC-32 and length.
      isal_inflate_reset(&s);
      s.crc_flag = ISAL_GZIP;
      in_member_ = true;
      magic_seen_ = 0;
    }
    check_magic();
    // ISA-L counts in 32-bit fields: feed and drain in pieces below 4 GiB.
    size_t in_avail = std::min(in_end_ - in_pos_, kMaxU32);
    size_t out_avail = std::min(capacity - produced, kMaxU32);
    s.next_in = reinterpret_cast<uint8_t*>(in_.data() + in_pos_);
    s.avail_in = static_cast<uint32_t>(in_avail);
    s.next_out = reinterpret_cast<uint8_t*>(buf + produced);
    s.avail_out = static_cast<uint32_t>(out_avail);
    int ret = isal_inflate(&s);
    size_t consumed = in_avail - s.avail_in;
    size_t made = out_avail - s.avail_out;
    in_pos_ += consumed;
    produced += made;
    magic_seen_ = std::min<size_t>(2, magic_seen_ + consumed);
    if (ret < 0) throw_damaged("gzip", isal_reason(ret));
    if (s.block_state == ISAL_BLOCK_FINISH) {
      // The trailer matched. ISA-L hands back the bytes it read ahead, so
      // in_pos_ is exactly where the next member (or garbage) starts.
      in_member_ = false;
      verified(produced);
      continue;
    }
    if (consumed == 0 && made == 0) {
      // Everything the decoder had is out and it needs more input: at the
      // end of the file that is truncation. With input and room left, an
      // idle decoder would loop forever: damaged data it failed to reject.
      if (in_pos_ == in_end_ && raw_at_end_) throw_truncated("gzip");
      if (in_pos_ != in_end_) throw_damaged("gzip", "the decoder cannot make progress");
    }
  }
}

#else  // zlib

struct GzipSource::Stream {
  z_stream z{};
};

GzipSource::GzipSource(std::unique_ptr<ByteSource> raw)
    : DecoderSource(std::move(raw)), stream_(std::make_unique<Stream>()) {
  // 15 + 32: the largest window, gzip or zlib header detected automatically.
  if (inflateInit2(&stream_->z, 15 + 32) != Z_OK) {
    throw Error(name() + ": cannot start the gzip decoder (out of memory).",
                ErrorKind::decoder_memory);
  }
}

GzipSource::~GzipSource() { inflateEnd(&stream_->z); }

void GzipSource::decode(char* buf, size_t capacity, size_t& produced) {
  z_stream& z = stream_->z;
  constexpr size_t kMaxUInt = std::numeric_limits<uInt>::max();
  while (produced < capacity) {
    if (!in_member_ && piece_ends_here()) return;
    if (in_pos_ == in_end_) refill();
    if (!in_member_) {
      if (in_pos_ == in_end_ || at_zero_padding()) return;  // the end, on a member boundary
      inflateReset(&z);
      in_member_ = true;
      magic_seen_ = 0;
    }
    check_magic();
    // zlib counts in 32-bit uInt: feed and drain in pieces below 4 GiB.
    size_t in_avail = std::min(in_end_ - in_pos_, kMaxUInt);
    size_t out_avail = std::min(capacity - produced, kMaxUInt);
    z.next_in = reinterpret_cast<Bytef*>(in_.data() + in_pos_);
    z.avail_in = static_cast<uInt>(in_avail);
    z.next_out = reinterpret_cast<Bytef*>(buf + produced);
    z.avail_out = static_cast<uInt>(out_avail);
    int ret = inflate(&z, Z_NO_FLUSH);
    in_pos_ += in_avail - z.avail_in;
    magic_seen_ = std::min<size_t>(2, magic_seen_ + (in_avail - z.avail_in));
    produced += out_avail - z.avail_out;
    switch (ret) {
      case Z_STREAM_END:
        in_member_ = false;
        verified(produced);
        break;
      case Z_OK:
        break;
      case Z_BUF_ERROR:
        // No progress possible: fine while more input can come, truncation
        // once the file has ended inside a member.
        if (in_pos_ == in_end_ && raw_at_end_) throw_truncated("gzip");
        break;
      case Z_MEM_ERROR:
        throw Error(name() + ": the gzip decoder ran out of memory.", ErrorKind::decoder_memory);
      default:  // Z_DATA_ERROR, Z_NEED_DICT, Z_STREAM_ERROR
        throw_damaged("gzip", z.msg != nullptr ? z.msg : "invalid data");
    }
  }
}

#endif

}  // namespace gdedup::io
