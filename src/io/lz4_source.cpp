#include "io/lz4_source.h"

#include <lz4frame.h>

#include "gdedup/error.h"

namespace gdedup::io {

struct Lz4Source::Context {
  LZ4F_dctx* d = nullptr;
};

Lz4Source::Lz4Source(std::unique_ptr<ByteSource> raw)
    : DecoderSource(std::move(raw)), ctx_(std::make_unique<Context>()) {
  if (LZ4F_isError(LZ4F_createDecompressionContext(&ctx_->d, LZ4F_VERSION))) {
    throw Error(name() + ": cannot start the lz4 decoder (out of memory).",
                ErrorKind::decoder_memory);
  }
}

Lz4Source::~Lz4Source() { LZ4F_freeDecompressionContext(ctx_->d); }

void Lz4Source::decode(char* buf, size_t capacity, size_t& produced) {
  while (produced < capacity) {
    if (in_pos_ == in_end_ && !refill() && !in_frame_) return;
    size_t in_size = in_end_ - in_pos_;
    size_t out_size = capacity - produced;
    const size_t ret = LZ4F_decompress(ctx_->d, buf + produced, &out_size, in_.data() + in_pos_,
                                       &in_size, nullptr);
    in_pos_ += in_size;
    produced += out_size;
    if (LZ4F_isError(ret)) throw_damaged("lz4", LZ4F_getErrorName(ret));
    // 0: a frame is complete and flushed; otherwise a hint of the bytes due.
    in_frame_ = ret != 0;
    if (!in_frame_) verified(produced);
    if (in_frame_ && in_size == 0 && out_size == 0 && in_pos_ == in_end_ && raw_at_end_) {
      throw_truncated("lz4");
    }
  }
}

}  // namespace gdedup::io
