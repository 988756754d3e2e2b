#include "format/resume_state_codec.h"

#include <cstdint>

#include "format/byte_codec.h"
#include "gdedup/error.h"

namespace gdedup::format {
namespace {

// The checkpoint format version that added the filter file to the state.
constexpr uint32_t kFirstVersionWithFilterFile = 6;
// The version that added the missing-key policy and count.
constexpr uint32_t kFirstVersionWithMissingKeys = 7;
// The version that added a Parquet output's footer.
constexpr uint32_t kFirstVersionWithOutputFooter = 8;
// Its first byte: no file; a file, whose identity follows; not known (a run
// resumed from an older checkpoint carries that on).
constexpr uint8_t kNoFilterFile = 0;
constexpr uint8_t kFilterFileExisted = 1;
constexpr uint8_t kFilterFileUnknown = 2;
// Set in the missing-key policy's byte when JSON and CDXJ keys are taken
// strictly: the byte's other values are the policy's, so every state
// written before it reads as it did, and an older program refuses it.
constexpr uint8_t kStrictJsonBit = 4;

void encode_identity(Encoder& e, const InputIdentity& in) {
  e.str(in.path);
  e.u8(in.regular ? 1 : 0);
  e.u64(in.size);
  e.u64(static_cast<uint64_t>(in.mtime_ns));
  e.u64(in.sample_hash);
}

InputIdentity decode_identity(Decoder& d) {
  InputIdentity in;
  in.path = d.str();
  const uint8_t regular = d.u8();
  if (regular > 1) d.malformed();
  in.regular = regular == 1;
  in.size = d.u64();
  in.mtime_ns = static_cast<int64_t>(d.u64());
  in.sample_hash = d.u64();
  return in;
}

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
  for (const InputIdentity& in : s.inputs) encode_identity(e, in);
  // Version 6: the filter file the job saves to.
  const FilterFileMark& mark = s.filter_file;
  e.u8(!mark.recorded ? kFilterFileUnknown : mark.existed ? kFilterFileExisted : kNoFilterFile);
  if (mark.recorded && mark.existed) encode_identity(e, mark.file);
  // Version 7: records without their JSON or CDXJ key, and (the same
  // byte) whether JSON is read strictly.
  e.u8(static_cast<uint8_t>(static_cast<uint8_t>(s.missing_key) |
                            (s.strict_json ? kStrictJsonBit : 0)));
  e.u64(s.missing_keys);
  // Version 8: a Parquet output's footer.
  e.str(s.output_footer);
  return e.take();
}

ResumeState decode_resume_state(const std::string& path, const std::string& bytes,
                                uint32_t version) {
  Decoder d(bytes, path + " has a malformed resume state (its checksum matches, so it was "
                       "written by a program that does not follow the checkpoint format)");
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
  for (InputIdentity& in : s.inputs) in = decode_identity(d);
  if (version >= kFirstVersionWithFilterFile) {
    const uint8_t mark = d.u8();
    if (mark > kFilterFileUnknown) d.malformed();
    s.filter_file.recorded = mark != kFilterFileUnknown;
    s.filter_file.existed = mark == kFilterFileExisted;
    if (s.filter_file.existed) s.filter_file.file = decode_identity(d);
  }
  if (version >= kFirstVersionWithMissingKeys) {
    const uint8_t byte = d.u8();
    const uint8_t policy = byte & ~kStrictJsonBit;
    if (policy > static_cast<uint8_t>(keys::MissingKey::kDrop)) d.malformed();
    s.strict_json = (byte & kStrictJsonBit) != 0;
    s.missing_key = static_cast<keys::MissingKey>(policy);
    s.missing_keys = d.u64();
  }
  if (version >= kFirstVersionWithOutputFooter) s.output_footer = d.str();
  d.finish();
  return s;
}

}  // namespace gdedup::format
