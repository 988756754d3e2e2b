#include "io/gzip_source.h"

#include <algorithm>
#include <limits>
#include <zlib.h>

#include "gdedup/error.h"

namespace gdedup::io {

struct GzipSource::Stream {
  z_stream z{};
};

GzipSource::GzipSource(std::unique_ptr<ByteSource> raw)
    : DecoderSource(std::move(raw)), stream_(std::make_unique<Stream>()) {
  // 15 + 32: the largest window, gzip or zlib header detected automatically.
  if (inflateInit2(&stream_->z, 15 + 32) != Z_OK) {
    throw Error(name() + ": cannot start the gzip decoder (out of memory).");
  }
}

GzipSource::~GzipSource() { inflateEnd(&stream_->z); }

void GzipSource::decode(char* buf, size_t capacity, size_t& produced) {
  z_stream& z = stream_->z;
  constexpr size_t kMaxUInt = std::numeric_limits<uInt>::max();
  while (produced < capacity) {
    if (in_pos_ == in_end_) refill();
    if (!in_member_) {
      if (in_pos_ == in_end_) return;  // the end, on a member boundary
      inflateReset(&z);
      in_member_ = true;
    }
    // zlib counts in 32-bit uInt: feed and drain in pieces below 4 GiB.
    size_t in_avail = std::min(in_end_ - in_pos_, kMaxUInt);
    size_t out_avail = std::min(capacity - produced, kMaxUInt);
    z.next_in = reinterpret_cast<Bytef*>(in_.data() + in_pos_);
    z.avail_in = static_cast<uInt>(in_avail);
    z.next_out = reinterpret_cast<Bytef*>(buf + produced);
    z.avail_out = static_cast<uInt>(out_avail);
    int ret = inflate(&z, Z_NO_FLUSH);
    in_pos_ += in_avail - z.avail_in;
    produced += out_avail - z.avail_out;
    switch (ret) {
      case Z_STREAM_END:
        in_member_ = false;
        break;
      case Z_OK:
        break;
      case Z_BUF_ERROR:
        // No progress possible: fine while more input can come, truncation
        // once the file has ended inside a member.
        if (in_pos_ == in_end_ && raw_at_end_) throw_truncated("gzip");
        break;
      case Z_MEM_ERROR:
        throw Error(name() + ": the gzip decoder ran out of memory.");
      default:  // Z_DATA_ERROR, Z_NEED_DICT, Z_STREAM_ERROR
        throw_damaged("gzip", z.msg != nullptr ? z.msg : "invalid data");
    }
  }
}

}  // namespace gdedup::io
