// Variable-length sections of gdedup files (the resume state of a
// checkpoint, the rules of a filter file): fields in a fixed order,
// little-endian; strings carry a 64-bit length. Decoding checks every length
// against what is left, so a forged length cannot make it allocate or read
// past the section.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "format/filter_file_format.h"
#include "gdedup/error.h"

namespace gdedup::format {

class Encoder {
 public:
  void u8(uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void u32(uint32_t v) {
    unsigned char b[4];
    filter_file::put_u32(b, v);
    out_.append(reinterpret_cast<const char*>(b), 4);
  }
  void u64(uint64_t v) {
    unsigned char b[8];
    filter_file::put_u64(b, v);
    out_.append(reinterpret_cast<const char*>(b), 8);
  }
  void f64(double v) {
    unsigned char b[8];
    filter_file::put_f64(b, v);
    out_.append(reinterpret_cast<const char*>(b), 8);
  }
  void str(const std::string& s) {
    u64(s.size());
    out_ += s;
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

// Throws Error(`malformed`), of kind damaged, for bytes that do not decode.
class Decoder {
 public:
  Decoder(const std::string& bytes, std::string malformed)
      : bytes_(bytes), malformed_(std::move(malformed)) {}

  uint8_t u8() { return static_cast<uint8_t>(*take(1)); }
  uint32_t u32() { return filter_file::get_u32(take(4)); }
  uint64_t u64() { return filter_file::get_u64(take(8)); }
  double f64() { return filter_file::get_f64(take(8)); }
  std::string str() {
    const uint64_t n = u64();
    if (n > bytes_.size() - at_) malformed();
    const auto* p = reinterpret_cast<const char*>(take(n));
    return std::string(p, n);
  }
  uint64_t count(uint64_t min_bytes_each) {
    const uint64_t n = u64();
    if (n > (bytes_.size() - at_) / min_bytes_each) malformed();
    return n;
  }
  // A flag byte: 0 or 1.
  bool flag() {
    const uint8_t v = u8();
    if (v > 1) malformed();
    return v == 1;
  }
  void finish() const {
    if (at_ != bytes_.size()) malformed();
  }

  [[noreturn]] void malformed() const { throw Error(malformed_, ErrorKind::damaged); }

 private:
  const unsigned char* take(uint64_t n) {
    if (n > bytes_.size() - at_) malformed();
    const auto* p = reinterpret_cast<const unsigned char*>(bytes_.data()) + at_;
    at_ += n;
    return p;
  }

  const std::string& bytes_;
  std::string malformed_;
  uint64_t at_ = 0;
};

}  // namespace gdedup::format
