#include "io/zstd_source.h"

#include <zstd.h>

#include <algorithm>

#include "gdedup/error.h"

namespace gdedup::io {

struct ZstdSource::Context {
  ZSTD_DCtx* d = nullptr;
};

ZstdSource::ZstdSource(std::unique_ptr<ByteSource> raw)
    : DecoderSource(std::move(raw)), ctx_(std::make_unique<Context>()) {
  ctx_->d = ZSTD_createDCtx();
  if (ctx_->d == nullptr) {
    throw Error(name() + ": cannot start the zstd decoder (out of memory).",
                ErrorKind::out_of_memory);
  }
  // Accept what `zstd --long=31` writes: a 2 GiB window instead of the 128 MiB
  // default, so such files decode instead of failing midway.
  ZSTD_DCtx_setParameter(ctx_->d, ZSTD_d_windowLogMax, 31);
}

ZstdSource::~ZstdSource() { ZSTD_freeDCtx(ctx_->d); }

void ZstdSource::decode(char* buf, size_t capacity, size_t& produced) {
  while (produced < capacity) {
    if (!in_frame_ && piece_ends_here()) return;
    if (in_pos_ == in_end_ && !refill() && !in_frame_) return;
    ZSTD_inBuffer in{in_.data(), in_end_, in_pos_};
    // At most one block's worth of output per call: given room for a whole
    // frame, libzstd decodes it in one shot and reports nothing of it when a
    // later block is damaged, losing records that came before the damage.
    ZSTD_outBuffer out{buf, std::min(capacity, produced + ZSTD_BLOCKSIZE_MAX), produced};
    size_t ret = ZSTD_decompressStream(ctx_->d, &out, &in);
    bool progress = in.pos != in_pos_ || out.pos != produced;
    in_pos_ = in.pos;
    produced = out.pos;
    if (ZSTD_isError(ret)) throw_damaged("zstd", ZSTD_getErrorName(ret));
    // 0: a frame is complete and flushed. Otherwise more is due, from input
    // or from output the decoder still holds.
    in_frame_ = ret != 0;
    if (!in_frame_) verified(produced);
    if (in_frame_ && !progress && in_pos_ == in_end_ && raw_at_end_) {
      throw_truncated("zstd");
    }
  }
}

}  // namespace gdedup::io
