// gzip decoding with ISA-L's igzip inflate where the build found it
// (GDEDUP_HAVE_ISAL), 2-3 times faster than zlib, which remains the
// fallback. Concatenated members (what `cat a.gz b.gz` and parallel
// compressors such as pigz produce) decode as one stream; each member's CRC-32
// and length are checked against its trailer. Zeros after the last member
// are accepted as padding, as `gzip -t` does.
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
  // Throws when the bytes at in_pos_ cannot begin the member's magic.
  void check_magic() const;
  // At a member boundary: true, with the input consumed, when zeros run from
  // in_pos_ to the end of the file.
  bool at_zero_padding();

  struct Stream;
  std::unique_ptr<Stream> stream_;
  bool in_member_ = false;  // between a member's first byte and its trailer
  size_t magic_seen_ = 0;   // bytes of the member's 2-byte magic checked so far
};

}  // namespace gdedup::io
