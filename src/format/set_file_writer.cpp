// Writing set files and set checkpoints (docs/FORMAT.md, "Set file" and
// "Set checkpoint"): through one fs::Replacement, as every gdedup file, a
// zero header, the rules section (the filter file's, with no growth rule),
// the resume state of a checkpoint, then the keys a piece at a time as the
// set hands them over ascending, and the header last: until then the file
// has no magic, so one cut short by a crash is never taken for a set.
#include <cstring>
#include <optional>
#include <string>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "format/filter_file_format.h"
#include "format/filter_rules_codec.h"
#include "format/resume_state_codec.h"
#include "format/set_file_format.h"
#include "format/set_key_codec.h"
#include "format/set_stream.h"
#include "fs/replacement.h"
#include "gdedup/frontend/path_text.h"
#include "gdedup/set_file.h"

namespace gdedup {
namespace {

using filter_file::put_u32;
using filter_file::put_u64;

// `state` is the encoded resume state, "" in a set file.
void write_set(const char* magic, uint64_t key_count, const SortedKeys& keys,
               const KeyRules& rules, const std::string& state, const std::string& path,
               const std::string& failure) {
  const std::string rules_bytes =
      format::encode_filter_rules(FilterRules{rules, std::nullopt, 0});
  fs::Replacement file(path, failure);
  unsigned char header[set_file::kHeaderBytes] = {};
  file.write(header, sizeof header);
  file.write(rules_bytes.data(), rules_bytes.size());
  file.write(state.data(), state.size());
  XXH3_state_t hash;
  XXH3_INITSTATE(&hash);
  XXH3_64bits_reset(&hash);
  format::SetKeyEncoder encoder(key_count, [&](const unsigned char* bytes, size_t n) {
    XXH3_64bits_update(&hash, bytes, n);
    file.write(bytes, n);
  });
  keys([&](const Key84* piece, size_t n) { encoder.add(piece, n); });
  const uint64_t keys_bytes = encoder.finish();

  std::memcpy(header + set_file::kOffMagic, magic, sizeof set_file::kMagic);
  put_u32(header + set_file::kOffVersion, kSetFileVersion);
  put_u32(header + set_file::kOffHeaderBytes, static_cast<uint32_t>(set_file::kHeaderBytes));
  put_u64(header + set_file::kOffKeyCount, key_count);
  put_u64(header + set_file::kOffRulesBytes, rules_bytes.size());
  put_u64(header + set_file::kOffRulesChecksum,
          XXH3_64bits(rules_bytes.data(), rules_bytes.size()));
  put_u64(header + set_file::kOffStateBytes, state.size());
  put_u64(header + set_file::kOffStateChecksum,
          state.empty() ? 0 : XXH3_64bits(state.data(), state.size()));
  put_u64(header + set_file::kOffKeysBytes, keys_bytes);
  put_u64(header + set_file::kOffKeysChecksum, XXH3_64bits_digest(&hash));
  put_u64(header + set_file::kOffHeaderChecksum,
          XXH3_64bits(header, set_file::kOffHeaderChecksum));
  file.pwrite(header, sizeof header, 0);
  file.commit();
}

SortedKeys keys_of(const KeySet& set) {
  return [&set](const KeySink& sink) { set.for_each_sorted(sink); };
}

}  // namespace

static_assert(kSetFileVersion == set_file::kVersion);

void save_set_file(const KeySet& set, const KeyRules& rules, const std::string& path) {
  save_set_streamed(set.size(), keys_of(set), rules, path);
}

void save_set_streamed(uint64_t key_count, const SortedKeys& keys, const KeyRules& rules,
                       const std::string& path) {
  write_set(set_file::kMagic, key_count, keys, rules, "", path,
            "cannot save set to " + fs::printable(path));
}

void save_set_checkpoint(const KeySet& set, const KeyRules& rules, const ResumeState& state,
                         const std::string& path) {
  save_set_checkpoint_streamed(set.size(), keys_of(set), rules, state, path);
}

void save_set_checkpoint_streamed(uint64_t key_count, const SortedKeys& keys,
                                  const KeyRules& rules, const ResumeState& state,
                                  const std::string& path) {
  write_set(set_file::kCheckpointMagic, key_count, keys, rules,
            format::encode_resume_state(state), path,
            "cannot write set checkpoint " + fs::printable(path));
}

}  // namespace gdedup
