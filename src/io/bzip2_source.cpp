#include "io/bzip2_source.h"

#include <bzlib.h>

#include <algorithm>
#include <limits>

#include "gdedup/error.h"

namespace gdedup::io {

namespace {

const char* bz_reason(int ret) {
  switch (ret) {
    case BZ_DATA_ERROR: return "corrupt data or CRC mismatch";
    case BZ_DATA_ERROR_MAGIC: return "no bzip2 stream starts here";
    default: return "invalid data";
  }
}

}  // namespace

struct Bzip2Source::Stream {
  bz_stream s{};
  bool live = false;  // s holds a decoder to end
};

Bzip2Source::Bzip2Source(std::unique_ptr<ByteSource> raw)
    : DecoderSource(std::move(raw)), stream_(std::make_unique<Stream>()) {}

Bzip2Source::~Bzip2Source() { end_stream(); }

void Bzip2Source::start_stream() {
  end_stream();
  stream_->s = bz_stream{};
  if (BZ2_bzDecompressInit(&stream_->s, 0, 0) != BZ_OK) {
    throw Error(name() + ": cannot start the bzip2 decoder (out of memory).",
                ErrorKind::decoder_memory);
  }
  stream_->live = true;
  in_stream_ = true;
}

void Bzip2Source::end_stream() {
  if (stream_->live) BZ2_bzDecompressEnd(&stream_->s);
  stream_->live = false;
}

void Bzip2Source::decode(char* buf, size_t capacity, size_t& produced) {
  bz_stream& s = stream_->s;
  constexpr size_t kMaxUInt = std::numeric_limits<unsigned int>::max();
  while (produced < capacity) {
    if (in_pos_ == in_end_) refill();
    if (!in_stream_) {
      if (in_pos_ == in_end_) return;  // the end, on a stream boundary
      start_stream();
    }
    // libbz2 counts in 32-bit fields: feed and drain in pieces below 4 GiB.
    const size_t in_avail = std::min(in_end_ - in_pos_, kMaxUInt);
    const size_t out_avail = std::min(capacity - produced, kMaxUInt);
    s.next_in = in_.data() + in_pos_;
    s.avail_in = static_cast<unsigned int>(in_avail);
    s.next_out = buf + produced;
    s.avail_out = static_cast<unsigned int>(out_avail);
    const int ret = BZ2_bzDecompress(&s);
    const size_t consumed = in_avail - s.avail_in;
    const size_t made = out_avail - s.avail_out;
    in_pos_ += consumed;
    produced += made;
    if (ret == BZ_STREAM_END) {
      in_stream_ = false;
      verified(produced);
      end_stream();
      continue;
    }
    if (ret == BZ_MEM_ERROR) {
      throw Error(name() + ": the bzip2 decoder ran out of memory.", ErrorKind::decoder_memory);
    }
    if (ret != BZ_OK) throw_damaged("bzip2", bz_reason(ret));
    if (consumed == 0 && made == 0) {
      if (in_pos_ == in_end_ && raw_at_end_) throw_truncated("bzip2");
      if (in_pos_ != in_end_) throw_damaged("bzip2", "the decoder cannot make progress");
    }
  }
}

}  // namespace gdedup::io
