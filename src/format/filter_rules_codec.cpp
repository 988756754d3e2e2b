#include "format/filter_rules_codec.h"

#include "format/byte_codec.h"
#include "format/filter_file_format.h"
#include "format/growth_codec.h"
#include "gdedup/error.h"

namespace gdedup::format {

std::string encode_filter_rules(const FilterRules& rules) {
  Encoder e;
  e.u8(rules.keys ? 1 : 0);
  if (rules.keys) {
    const KeyRules& k = *rules.keys;
    // u64 fingerprints have no key options: the defaults stand for none.
    const KeyOptions keys = k.format == InputFormat::kU64 ? KeyOptions{} : k.keys;
    e.u32(static_cast<uint32_t>(k.format));
    e.str(keys.key_text());
    e.str(keys.delimiter_text());
    e.str(keys.normalize_text());
    const char separator = k.format == InputFormat::kU64 ? '\n' : k.record_separator;
    if (separator != '\n' && separator != '\0') {
      throw UsageError("cannot save the key rules \"" + k.to_string() +
                       "\": KeyRules::record_separator must be '\\n' or '\\0'");
    }
    e.u8(static_cast<uint8_t>(separator));
    e.u64(k.seed);
  }
  e.u8(rules.growth ? 1 : 0);
  if (rules.growth) {
    encode_growth_rule(e, *rules.growth);
    e.u64(rules.keys_offered);
  }
  return e.take();
}

FilterRules decode_filter_rules(const std::string& path, const std::string& bytes,
                                uint32_t version) {
  const std::string malformed =
      path + " has malformed rules (its checksums match, so it was written by a program that "
             "does not follow the filter file format)";
  Decoder d(bytes, malformed);
  FilterRules rules;
  if (d.flag()) {
    KeyRules k;
    const uint32_t format = d.u32();
    if (format > static_cast<uint32_t>(InputFormat::kU64)) d.malformed();
    k.format = static_cast<InputFormat>(format);
    const std::string key = d.str();
    const std::string delimiter = d.str();
    const std::string normalize = d.str();
    try {
      k.keys = KeyOptions::parse(key, delimiter, normalize);
    } catch (const UsageError&) {
      d.malformed();
    }
    // One spelling per rule, so that equal files are equal bytes.
    if (k.keys.key_text() != key || k.keys.delimiter_text() != delimiter ||
        k.keys.normalize_text() != normalize ||
        (k.format == InputFormat::kU64 && k.keys != KeyOptions{})) {
      d.malformed();
    }
    if (version > filter_file::kVersion2) {
      const uint8_t separator = d.u8();
      if ((separator != '\n' && separator != '\0') ||
          (k.format == InputFormat::kU64 && separator != '\n')) {
        d.malformed();
      }
      k.record_separator = static_cast<char>(separator);
    }
    k.seed = d.u64();
    rules.keys = k;
  }
  if (d.flag()) {
    const GrowthRule g = decode_growth_rule(d);
    rules.keys_offered = d.u64();
    try {
      g.validate();
    } catch (const UsageError& e) {
      throw Error(malformed + ": " + e.what(), ErrorKind::damaged);
    }
    if (g.block_bits != 0 && g.block_bits != 256 && g.block_bits != 512) d.malformed();
    rules.growth = g;
  }
  d.finish();
  return rules;
}

}  // namespace gdedup::format
