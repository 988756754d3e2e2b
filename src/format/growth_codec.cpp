#include "format/growth_codec.h"

#include "format/byte_codec.h"

namespace gdedup::format {

void encode_growth_rule(Encoder& e, const GrowthRule& rule) {
  e.u64(rule.first_capacity);
  e.f64(rule.target_fpr);
  e.u32(rule.growth);
  e.f64(rule.tightening);
  e.u32(rule.block_bits);
  e.u64(rule.check_every);
}

GrowthRule decode_growth_rule(Decoder& d) {
  GrowthRule rule;
  rule.first_capacity = d.u64();
  rule.target_fpr = d.f64();
  rule.growth = d.u32();
  rule.tightening = d.f64();
  rule.block_bits = d.u32();
  rule.check_every = d.u64();
  return rule;
}

std::string encode_growth(const SavedGrowth& saved) {
  Encoder e;
  e.u8(saved.growth ? 1 : 0);
  if (!saved.growth) return e.take();
  const GrowthState& g = *saved.growth;
  encode_growth_rule(e, g.rule);
  e.u64(g.max_bytes);
  e.u64(g.keys_offered);
  e.u32(saved.layers);
  return e.take();
}

SavedGrowth decode_growth(const std::string& path, const std::string& bytes) {
  Decoder d(bytes, path + " has a malformed growth section (its checksum matches, so it was "
                          "written by a program that does not follow the checkpoint format)");
  SavedGrowth saved;
  const uint8_t grows = d.u8();
  if (grows > 1) d.malformed();
  if (grows == 0) {
    d.finish();
    return saved;
  }
  GrowthState g;
  g.rule = decode_growth_rule(d);
  g.max_bytes = d.u64();
  g.keys_offered = d.u64();
  saved.layers = d.u32();
  d.finish();
  try {
    g.rule.validate();
  } catch (const UsageError&) {
    d.malformed();
  }
  if (saved.layers == 0 || saved.layers > kMaxLayers) d.malformed();
  saved.growth = g;
  return saved;
}

}  // namespace gdedup::format
