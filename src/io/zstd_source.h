// zstd decoding with libzstd's streaming API. Several frames in a row (what
// `cat a.zst b.zst` and `zstd -T0` on big inputs produce) decode as one
// stream; skippable frames are passed over.
#pragma once

#include <memory>

#include "io/decoder_source.h"

namespace gdedup::io {

class ZstdSource final : public DecoderSource {
 public:
  explicit ZstdSource(std::unique_ptr<ByteSource> raw);
  ~ZstdSource() override;
  ZstdSource(const ZstdSource&) = delete;
  ZstdSource& operator=(const ZstdSource&) = delete;

 private:
  void decode(char* buf, size_t capacity, size_t& produced) override;

  struct Context;
  std::unique_ptr<Context> ctx_;
  bool in_frame_ = false;  // libzstd's last answer was "more to come"
};

}  // namespace gdedup::io
