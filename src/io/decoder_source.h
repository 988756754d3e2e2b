// What the gzip and zstd sources share: the compressed input buffer with its
// byte offset, and the rule that a failure is reported only after every byte
// decoded before it has been handed out.
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <vector>

#include "io/byte_source.h"

namespace gdedup::io {

// The most memory a compressed input's header may make its decoder take:
// the largest zstd window (what `zstd --long=31` writes) and liblzma's
// memory limit (xz writes dictionaries of at most 1.5 GiB). A hostile
// header asking for more is refused before anything is allocated.
// --max-memory caps the filter or set, not this.
constexpr uint64_t kDecoderMemoryCeiling = uint64_t{1} << 31;

class DecoderSource : public ByteSource {
 public:
  size_t read(char* buf, size_t capacity) final;
  const std::string& name() const final { return raw_->name(); }
  uint64_t raw_bytes_read() const final { return raw_->raw_bytes_read(); }
  std::optional<uint64_t> raw_size() const final { return raw_->raw_size(); }
  bool compressed() const final { return true; }
  uint64_t verified_bytes() const final { return verified_; }

  // Makes this decoder read one piece of a file (compressed_pieces.h): its
  // raw source starts at file offset `first_offset`, and the data ends at the
  // first member or frame boundary whose file offset `ends_here` accepts.
  // Decoders of formats that are never split (xz, bzip2, lz4) ignore it.
  void read_piece(uint64_t first_offset, std::function<bool(uint64_t)> ends_here);
  // File offset just past the compressed bytes the decoder has consumed: at
  // the end of the data, where the last member or frame ended.
  uint64_t offset() const { return first_offset_ + fed_ - (in_end_ - in_pos_); }

 protected:
  explicit DecoderSource(std::unique_ptr<ByteSource> raw);

  // Decodes into buf, keeping `produced` current so that a throw midway
  // still hands out what came before it. Returns with produced == 0 only at
  // the end of the data.
  virtual void decode(char* buf, size_t capacity, size_t& produced) = 0;

  // Refills the compressed buffer once it is used up; false at the end of the
  // compressed file.
  bool refill();
  // At a member or frame boundary: true where the piece being read ends.
  bool piece_ends_here() const { return ends_here_ && ends_here_(offset()); }

  // Called when a member or frame passed its check: the bytes decoded so far,
  // `produced` of them in this call, are verified.
  void verified(size_t produced) { verified_ = handed_out_ + produced; }

  // DamagedData: "NAME: FORMAT stream is damaged at compressed byte offset
  // N (WHY)." N is offset(), counted from the start of the file.
  [[noreturn]] void throw_damaged(const char* format, const std::string& why) const;
  // DamagedData: "NAME: FORMAT stream ends early (truncated) at compressed
  // byte offset N."
  [[noreturn]] void throw_truncated(const char* format) const;
  // DamagedData: "NAME: FORMAT stream at compressed byte offset N asks for
  // B bytes of memory to decode, more than ..." (kDecoderMemoryCeiling).
  [[noreturn]] void throw_too_much_memory(const char* format, uint64_t asked) const;
  // Error (out_of_memory): "NAME: the FORMAT decoder ran out of memory at
  // compressed byte offset N ..." -- a header within the ceiling asked for
  // more than the machine could give.
  [[noreturn]] void throw_out_of_memory(const char* format) const;

  std::vector<char> in_;
  size_t in_pos_ = 0;  // next compressed byte for the decoder
  size_t in_end_ = 0;  // end of the compressed bytes in in_
  bool raw_at_end_ = false;

 private:
  std::unique_ptr<ByteSource> raw_;
  uint64_t first_offset_ = 0;  // file offset of the raw source's first byte
  std::function<bool(uint64_t)> ends_here_;
  uint64_t fed_ = 0;  // compressed bytes placed in in_ so far
  uint64_t handed_out_ = 0;  // decoded bytes returned by read()
  uint64_t verified_ = 0;    // of those, the ones a check has passed
  std::exception_ptr deferred_;
  bool finished_ = false;
};

// The decoder of `kind` reading `raw` (taken from it; left alone for plain
// data, which gets null). Throws gdedup::Error (unsupported_format) naming
// the input for the formats that are recognised but not decoded.
std::unique_ptr<DecoderSource> make_decoder(Compression kind, std::unique_ptr<ByteSource>& raw);

}  // namespace gdedup::io
