// How an exact set is described by `gdedup info` and `gdedup plan --exact`
// (docs/CLI.md): the numbers come from the set and KeySet's own formulas.
#include <cstdio>

#include "gdedup/frontend/filter_report.h"
#include "gdedup/frontend/number_text.h"

namespace gdedup {
namespace {

// "exact set (--exact): every distinct key seen, as 84 bits of its hash"
std::string set_kind(const OptionNames& names) {
  return "exact set (" + names.name(JobOption::kExact) + "): every distinct key seen, as " +
         std::to_string(kKeyBits) + " bits of its hash";
}

double per_key(uint64_t bytes, uint64_t keys) {
  return keys == 0 ? 0.0 : static_cast<double>(bytes) / static_cast<double>(keys);
}

// "7.8 MiB (8,203,473 bytes, 8.20 bytes a key)"
std::string bytes_text(uint64_t bytes, uint64_t keys) {
  std::string text = human_bytes(bytes) + " (" + group_digits(bytes) + " bytes";
  if (keys == 0) return text + ")";
  char each[48];
  std::snprintf(each, sizeof each, ", %.2f bytes a key)", per_key(bytes, keys));
  return text + each;
}

// "1.02e-14: the chance that two of 1,000,000 keys share their 84 bits"
std::string collision_text(uint64_t keys) {
  return format_rate(KeySet::collision_chance(keys)) + ": the chance that two of " +
         counted(keys, "key") + " share their " + std::to_string(kKeyBits) +
         " bits, so that a unique key is taken for a seen one";
}

}  // namespace

std::string set_rows(const SetFileSummary& set) {
  const uint64_t keys = set.info.keys;
  return row("keys", group_digits(keys)) +
         row("file size", bytes_text(set.info.file_bytes, keys)) +
         row("memory", bytes_text(set.bytes, keys) + " when loaded") +
         row("load", format_percent(set.load) + " of the table's slots") +
         row("collision", collision_text(keys));
}

JsonObject& add_set_fields(JsonObject& o, const SetFileSummary& set) {
  const uint64_t keys = set.info.keys;
  return o.add("keys", keys)
      .add("file_bytes", set.info.file_bytes)
      .add("file_bytes_per_key", per_key(set.info.file_bytes, keys))
      .add("bytes", set.bytes)
      .add("bytes_per_key", per_key(set.bytes, keys))
      .add("load", set.load)
      .add("collision_chance", KeySet::collision_chance(keys));
}

std::string set_info_text(const std::string& path, const SetFileSummary& file,
                          const OptionNames& names) {
  return row("file", path) + row("kind", set_kind(names)) +
         row("version", std::to_string(file.info.version)) +
         row("key rules", file.info.rules.to_string()) + set_rows(file);
}

JsonObject set_info_json(const std::string& path, const SetFileSummary& file) {
  JsonObject o;
  o.add("file", path)
      .add("kind", "set")
      .add("info_version", kInfoJsonVersion)
      .add("version", uint64_t{file.info.version})
      .add("key_rules", file.info.rules.to_string());
  return add_set_fields(o, file);
}

std::string set_plan_text(uint64_t keys) {
  return row("capacity", counted(keys, "distinct key")) +
         row("memory", bytes_text(KeySet::bytes_for(keys), keys) +
                           " at that many keys, grown from small as a job grows it") +
         row("collision", collision_text(keys));
}

JsonObject set_plan_json(uint64_t keys) {
  const uint64_t bytes = KeySet::bytes_for(keys);
  JsonObject o;
  o.add("exact", true)
      .add("capacity", keys)
      .add("bytes", bytes)
      .add("bytes_per_key", per_key(bytes, keys))
      .add("collision_chance", KeySet::collision_chance(keys));
  return o;
}

}  // namespace gdedup
