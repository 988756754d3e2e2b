// bzip2 decoding with libbz2. Concatenated streams (`cat a.bz2 b.bz2`, what
// pbzip2 and lbzip2 write) decode as one stream; each block's CRC and the
// stream's combined CRC are checked.
#pragma once

#include <memory>

#include "io/decoder_source.h"

namespace gdedup::io {

class Bzip2Source final : public DecoderSource {
 public:
  explicit Bzip2Source(std::unique_ptr<ByteSource> raw);
  ~Bzip2Source() override;
  Bzip2Source(const Bzip2Source&) = delete;
  Bzip2Source& operator=(const Bzip2Source&) = delete;

 private:
  void decode(char* buf, size_t capacity, size_t& produced) override;
  // Starts a fresh decoder for the stream beginning at in_pos_.
  void start_stream();
  void end_stream();

  struct Stream;
  std::unique_ptr<Stream> stream_;
  bool in_stream_ = false;  // between a stream's first byte and its end marker
};

}  // namespace gdedup::io
