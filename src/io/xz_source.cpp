#include "io/xz_source.h"

#include <lzma.h>

#include <cstdint>

#include "gdedup/error.h"

namespace gdedup::io {

namespace {

const char* lzma_reason(lzma_ret ret) {
  switch (ret) {
    case LZMA_FORMAT_ERROR: return "not an xz stream";
    case LZMA_OPTIONS_ERROR: return "unsupported options";
    case LZMA_DATA_ERROR: return "corrupt data";
    case LZMA_BUF_ERROR: return "the decoder cannot make progress";
    case LZMA_UNSUPPORTED_CHECK: return "unsupported integrity check";
    default: return "invalid data";
  }
}

}  // namespace

struct XzSource::Stream {
  lzma_stream s = LZMA_STREAM_INIT;
};

XzSource::XzSource(std::unique_ptr<ByteSource> raw)
    : DecoderSource(std::move(raw)), stream_(std::make_unique<Stream>()) {
  // The dictionary size is the compressor's choice (64 MiB at xz -9, at
  // most 1.5 GiB), but a header may claim up to 4 GiB: the limit refuses
  // that before liblzma allocates it.
  if (lzma_stream_decoder(&stream_->s, kDecoderMemoryCeiling, LZMA_CONCATENATED) != LZMA_OK) {
    throw Error(name() + ": cannot start the xz decoder (out of memory).",
                ErrorKind::decoder_memory);
  }
}

XzSource::~XzSource() { lzma_end(&stream_->s); }

void XzSource::decode(char* buf, size_t capacity, size_t& produced) {
  lzma_stream& s = stream_->s;
  while (produced < capacity && !ended_) {
    if (in_pos_ == in_end_) refill();
    // With LZMA_CONCATENATED the decoder only knows the last stream has
    // ended when told the input has.
    const bool finishing = in_pos_ == in_end_ && raw_at_end_;
    s.next_in = reinterpret_cast<const uint8_t*>(in_.data() + in_pos_);
    s.avail_in = in_end_ - in_pos_;
    s.next_out = reinterpret_cast<uint8_t*>(buf + produced);
    s.avail_out = capacity - produced;
    const lzma_ret ret = lzma_code(&s, finishing ? LZMA_FINISH : LZMA_RUN);
    const size_t made = capacity - produced - s.avail_out;
    const size_t consumed = in_end_ - in_pos_ - s.avail_in;
    in_pos_ += consumed;
    produced += made;
    if (ret == LZMA_STREAM_END) {
      ended_ = true;
      verified(produced);
    } else if (ret == LZMA_MEMLIMIT_ERROR) {
      throw_too_much_memory("xz", lzma_memusage(&s));
    } else if (ret == LZMA_MEM_ERROR) {
      throw_out_of_memory("xz");
    } else if (ret != LZMA_OK && ret != LZMA_BUF_ERROR) {
      throw_damaged("xz", lzma_reason(ret));
    } else if (made == 0 && consumed == 0) {
      // Told the input has ended, the decoder still wants more: truncation.
      // With input and room left, an idle decoder would loop forever.
      if (finishing) throw_truncated("xz");
      if (in_pos_ != in_end_) throw_damaged("xz", lzma_reason(LZMA_BUF_ERROR));
    }
  }
}

}  // namespace gdedup::io
