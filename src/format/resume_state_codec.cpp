// Fields in a fixed order, little-endian; strings and lists carry a 64-bit
// length. Decoding checks every length against what is left, so a forged
// length cannot make it allocate or read past the section.
#include "format/resume_state_codec.h"

#include <cstdint>

#include "format/filter_file_format.h"
#include "gdedup/error.h"

namespace gdedup::format {
namespace {

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
  void str(const std::string& s) {
    u64(s.size());
    out_ += s;
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

class Decoder {
 public:
  Decoder(const std::string& path, const std::string& bytes) : path_(path), bytes_(bytes) {}

  uint8_t u8() { return static_cast<uint8_t>(*take(1)); }
  uint32_t u32() { return filter_file::get_u32(take(4)); }
  uint64_t u64() { return filter_file::get_u64(take(8)); }
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
  void finish() const {
    if (at_ != bytes_.size()) malformed();
  }

  [[noreturn]] void malformed() const {
    throw Error(path_ +
                    " has a malformed resume state (its checksum matches, so it was "
                    "written by a program that does not follow the checkpoint format)",
                ErrorKind::damaged);
  }

 private:
  const unsigned char* take(uint64_t n) {
    if (n > bytes_.size() - at_) malformed();
    const auto* p = reinterpret_cast<const unsigned char*>(bytes_.data()) + at_;
    at_ += n;
    return p;
  }

  const std::string& path_;
  const std::string& bytes_;
  uint64_t at_ = 0;
};

}  // namespace

std::string encode_resume_state(const ResumeState& s) {
  Encoder e;
  e.u32(static_cast<uint32_t>(s.mode));
  e.u32(static_cast<uint32_t>(s.format));
  e.u8(static_cast<uint8_t>(s.record_separator));
  e.str(s.keys.key_text());
  e.str(s.keys.delimiter_text());
  e.str(s.keys.normalize_text());
  e.str(s.output);
  e.str(s.output_temporary);
  e.u64(s.output_offset);
  e.u64(s.output_checksum);
  e.u64(s.position.records);
  e.u64(s.position.offset);
  e.u64(s.position.input_index);
  e.u64(s.position.input_offset);
  e.u64(s.records);
  e.u64(s.kept);
  e.u64(s.dropped);
  e.u64(s.input_bytes);
  e.u64(s.inputs.size());
  for (const InputIdentity& in : s.inputs) {
    e.str(in.path);
    e.u8(in.regular ? 1 : 0);
    e.u64(in.size);
    e.u64(static_cast<uint64_t>(in.mtime_ns));
    e.u64(in.sample_hash);
  }
  return e.take();
}

ResumeState decode_resume_state(const std::string& path, const std::string& bytes) {
  Decoder d(path, bytes);
  ResumeState s;
  const uint32_t mode = d.u32();
  const uint32_t format = d.u32();
  if (mode > static_cast<uint32_t>(Mode::kQueryAbsent) ||
      format > static_cast<uint32_t>(InputFormat::kU64)) {
    d.malformed();
  }
  s.mode = static_cast<Mode>(mode);
  s.format = static_cast<InputFormat>(format);
  s.record_separator = static_cast<char>(d.u8());
  const std::string key = d.str();
  const std::string delimiter = d.str();
  const std::string normalize = d.str();
  // Checkpoints written before the texts were canonical hold them as the
  // user gave them: any spelling parses.
  try {
    s.keys = KeyOptions::parse(key, delimiter, normalize);
  } catch (const UsageError&) {
    d.malformed();
  }
  s.output = d.str();
  s.output_temporary = d.str();
  s.output_offset = d.u64();
  s.output_checksum = d.u64();
  s.position.records = d.u64();
  s.position.offset = d.u64();
  s.position.input_index = d.u64();
  s.position.input_offset = d.u64();
  s.records = d.u64();
  s.kept = d.u64();
  s.dropped = d.u64();
  s.input_bytes = d.u64();
  // An input takes at least 8 (path length) + 1 + 3 * 8 bytes.
  const uint64_t inputs = d.count(33);
  s.inputs.resize(inputs);
  for (InputIdentity& in : s.inputs) {
    in.path = d.str();
    const uint8_t regular = d.u8();
    if (regular > 1) d.malformed();
    in.regular = regular == 1;
    in.size = d.u64();
    in.mtime_ns = static_cast<int64_t>(d.u64());
    in.sample_hash = d.u64();
  }
  d.finish();
  return s;
}

}  // namespace gdedup::format
