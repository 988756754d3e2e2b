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

// Each member starts afresh: its own header, CRC-32 and length.
void GzipSource::start_member() {
  isal_inflate_reset(&stream_->s);
  stream_->s.crc_flag = ISAL_GZIP;
}

GzipSource::Inflated GzipSource::inflate_some(Window& w) {
  inflate_state& s = stream_->s;
  s.next_in = reinterpret_cast<uint8_t*>(w.in);
  s.avail_in = w.in_avail;
  s.next_out = reinterpret_cast<uint8_t*>(w.out);
  s.avail_out = w.out_avail;
  const int ret = isal_inflate(&s);
  w.in_avail = s.avail_in;
  w.out_avail = s.avail_out;
  if (ret < 0) return {false, isal_reason(ret)};
  // The trailer matched. ISA-L hands back the bytes it read ahead, so the
  // input left starts exactly where the next member (or garbage) does.
  return {s.block_state == ISAL_BLOCK_FINISH, nullptr};
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

void GzipSource::start_member() { inflateReset(&stream_->z); }

GzipSource::Inflated GzipSource::inflate_some(Window& w) {
  z_stream& z = stream_->z;
  z.next_in = reinterpret_cast<Bytef*>(w.in);
  z.avail_in = w.in_avail;
  z.next_out = reinterpret_cast<Bytef*>(w.out);
  z.avail_out = w.out_avail;
  const int ret = inflate(&z, Z_NO_FLUSH);
  w.in_avail = z.avail_in;
  w.out_avail = z.avail_out;
  switch (ret) {
    case Z_STREAM_END: return {true, nullptr};
    case Z_OK:
    case Z_BUF_ERROR:  // no progress possible: decode() tells truncation from waiting
      return {false, nullptr};
    case Z_MEM_ERROR:
      throw Error(name() + ": the gzip decoder ran out of memory.", ErrorKind::decoder_memory);
    default:  // Z_DATA_ERROR, Z_NEED_DICT, Z_STREAM_ERROR
      return {false, z.msg != nullptr ? z.msg : "invalid data"};
  }
}

#endif

// One loop for both decoders: members one after another, each checked at
// its trailer, zero padding after the last, and truncation or a decoder
// that stalls told apart from one waiting for input.
void GzipSource::decode(char* buf, size_t capacity, size_t& produced) {
  // Both decoders count in 32 bits: feed and drain in pieces below 4 GiB.
  constexpr size_t kMaxU32 = std::numeric_limits<uint32_t>::max();
  while (produced < capacity) {
    if (!in_member_ && piece_ends_here()) return;
    if (in_pos_ == in_end_) refill();
    if (!in_member_) {
      if (in_pos_ == in_end_ || at_zero_padding()) return;  // the end, on a member boundary
      start_member();
      in_member_ = true;
      magic_seen_ = 0;
    }
    check_magic();
    Window w;
    w.in = in_.data() + in_pos_;
    w.in_avail = static_cast<uint32_t>(std::min(in_end_ - in_pos_, kMaxU32));
    w.out = buf + produced;
    w.out_avail = static_cast<uint32_t>(std::min(capacity - produced, kMaxU32));
    const uint32_t in_given = w.in_avail;
    const uint32_t out_given = w.out_avail;
    const Inflated step = inflate_some(w);
    const size_t consumed = in_given - w.in_avail;
    const size_t made = out_given - w.out_avail;
    in_pos_ += consumed;
    produced += made;
    magic_seen_ = std::min<size_t>(2, magic_seen_ + consumed);
    // After in_pos_ moved: the message gives the offset the decoder reached.
    if (step.damage != nullptr) throw_damaged("gzip", step.damage);
    if (step.member_ends) {
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

}  // namespace gdedup::io
