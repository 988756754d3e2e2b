// gzip decoding with ISA-L's igzip inflate where the build found it
// (GDEDUP_HAVE_ISAL), 2-3 times faster than zlib, which remains the
// fallback. Concatenated members (what `cat a.gz b.gz` and parallel
// compressors such as pigz produce) decode as one stream; each member's CRC-32
// and length are checked against its trailer. Zeros after the last member
// are accepted as padding, as `gzip -t` does.
#pragma once

#include <cstdint>
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

  // What one call of the decoder is given, and what it leaves: the input
  // not consumed and the room not filled.
  struct Window {
    char* in = nullptr;
    uint32_t in_avail = 0;
    char* out = nullptr;
    uint32_t out_avail = 0;
  };
  // What a call of the decoder ended with.
  struct Inflated {
    bool member_ends = false;      // the member's trailer matched
    const char* damage = nullptr;  // why the data is damaged, if it is
  };
  // The decoder's own steps (ISA-L's or zlib's; decode() is the loop they
  // share): reset for a new member, and decode some of `w`.
  void start_member();
  Inflated inflate_some(Window& w);
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
