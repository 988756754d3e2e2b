// Bytes from memory in reads of at most `piece` bytes: with a small piece,
// gzip headers, block boundaries and trailers fall across reads; with a large
// one it is memory at full speed (bench/splitter_bench). Header-only.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>

#include "io/byte_source.h"

namespace gdedup::test {

class PieceSource final : public io::ByteSource {
 public:
  PieceSource(std::string bytes, size_t piece) : bytes_(std::move(bytes)), piece_(piece) {}
  size_t read(char* buf, size_t capacity) override {
    const size_t n = std::min({capacity, piece_, bytes_.size() - pos_});
    std::memcpy(buf, bytes_.data() + pos_, n);
    pos_ += n;
    return n;
  }
  const std::string& name() const override { return name_; }
  uint64_t raw_bytes_read() const override { return pos_; }
  std::optional<uint64_t> raw_size() const override { return bytes_.size(); }

 private:
  std::string bytes_;
  size_t piece_;
  size_t pos_ = 0;
  std::string name_ = "pieces";
};

}  // namespace gdedup::test
