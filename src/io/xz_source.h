// xz decoding with liblzma. Concatenated streams (`cat a.xz b.xz`, what
// `xz -T0` writes for big inputs) and the stream padding between them decode
// as one stream; each block's integrity check is verified.
#pragma once

#include <memory>

#include "io/decoder_source.h"

namespace gdedup::io {

class XzSource final : public DecoderSource {
 public:
  explicit XzSource(std::unique_ptr<ByteSource> raw);
  ~XzSource() override;
  XzSource(const XzSource&) = delete;
  XzSource& operator=(const XzSource&) = delete;

 private:
  void decode(char* buf, size_t capacity, size_t& produced) override;

  struct Stream;
  std::unique_ptr<Stream> stream_;
  bool ended_ = false;  // liblzma reported the end of the last stream
};

}  // namespace gdedup::io
