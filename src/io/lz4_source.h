// lz4 frame decoding with liblz4 (what the `lz4` tool writes). Several
// frames in a row decode as one stream, skippable frames are passed over,
// and the content checksums a frame carries are verified. The legacy format
// (`lz4 -l`) is refused when the input is opened (open_input.cpp).
#pragma once

#include <memory>

#include "io/decoder_source.h"

namespace gdedup::io {

class Lz4Source final : public DecoderSource {
 public:
  explicit Lz4Source(std::unique_ptr<ByteSource> raw);
  ~Lz4Source() override;
  Lz4Source(const Lz4Source&) = delete;
  Lz4Source& operator=(const Lz4Source&) = delete;

 private:
  void decode(char* buf, size_t capacity, size_t& produced) override;

  struct Context;
  std::unique_ptr<Context> ctx_;
  bool in_frame_ = false;  // liblz4's last answer was "more to come"
};

}  // namespace gdedup::io
