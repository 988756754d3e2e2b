// gzip decoding with zlib. Concatenated members (what `cat a.gz b.gz` and
// parallel compressors such as pigz produce) decode as one stream.
#pragma once

#include <memory>

#include "io/decoder_source.h"

namespace gdedup::io {

class GzipSource final : public DecoderSource {
 public:
  explicit GzipSource(std::unique_ptr<ByteSource> raw);
  ~GzipSource() override;
  GzipSource(const GzipSource&) = delete;
  GzipSource& operator=(const GzipSource&) = delete;

 private:
  void decode(char* buf, size_t capacity, size_t& produced) override;

  struct Stream;
  std::unique_ptr<Stream> stream_;
  bool in_member_ = false;  // between a member's first byte and its trailer
};

}  // namespace gdedup::io
