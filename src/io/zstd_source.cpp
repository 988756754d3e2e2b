#include "io/zstd_source.h"

#include <zstd.h>
#include <zstd_errors.h>

#include <algorithm>

#include "gdedup/error.h"

namespace gdedup::io {

namespace {

// The window the frame header at `p` asks for (RFC 8878, 3.1.1.1), or 0
// where the n bytes hold no such header. libzstd's ZSTD_getFrameHeader
// refuses a window log past 31 instead of reading it.
uint64_t frame_window(const unsigned char* p, size_t n) {
  if (n < 6 || p[0] != 0x28 || p[1] != 0xb5 || p[2] != 0x2f || p[3] != 0xfd) return 0;
  const unsigned descriptor = p[4];
  if ((descriptor & 0x20) == 0) {  // a window descriptor: exponent and mantissa
    const uint64_t base = uint64_t{1} << (10 + (p[5] >> 3));
    return base + base / 8 * (p[5] & 7);
  }
  // Single segment: the window is the content size, after the dictionary ID.
  static constexpr size_t kIdBytes[] = {0, 1, 2, 4};
  static constexpr size_t kSizeBytes[] = {1, 2, 4, 8};
  const size_t at = 5 + kIdBytes[descriptor & 3];
  const size_t bytes = kSizeBytes[descriptor >> 6];
  if (n < at + bytes) return 0;
  uint64_t size = 0;
  for (size_t i = bytes; i-- > 0;) size = size << 8 | p[at + i];
  return bytes == 2 ? size + 256 : size;
}

}  // namespace

struct ZstdSource::Context {
  ZSTD_DCtx* d = nullptr;
};

ZstdSource::ZstdSource(std::unique_ptr<ByteSource> raw)
    : DecoderSource(std::move(raw)), ctx_(std::make_unique<Context>()) {
  ctx_->d = ZSTD_createDCtx();
  if (ctx_->d == nullptr) {
    throw Error(name() + ": cannot start the zstd decoder (out of memory).",
                ErrorKind::decoder_memory);
  }
  // Accept what `zstd --long=31` writes: a 2 GiB window instead of the 128 MiB
  // default, so such files decode instead of failing midway.
  constexpr int kWindowLogMax = 31;
  static_assert(uint64_t{1} << kWindowLogMax == kDecoderMemoryCeiling);
  ZSTD_DCtx_setParameter(ctx_->d, ZSTD_d_windowLogMax, kWindowLogMax);
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
    if (ZSTD_isError(ret)) {
      if (ZSTD_getErrorCode(ret) == ZSTD_error_memory_allocation) throw_out_of_memory("zstd");
      if (ZSTD_getErrorCode(ret) == ZSTD_error_frameParameter_windowTooLarge) {
        // libzstd leaves the refused frame's header unread at in_pos_,
        // unless it came in two reads (then its own reason is given).
        const uint64_t window = frame_window(
            reinterpret_cast<const unsigned char*>(in_.data()) + in_pos_, in_end_ - in_pos_);
        if (window > kDecoderMemoryCeiling) throw_too_much_memory("zstd", window);
      }
      throw_damaged("zstd", ZSTD_getErrorName(ret));
    }
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
