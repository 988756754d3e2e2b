// The set file and set checkpoint header (docs/FORMAT.md, "Set file" and
// "Set checkpoint"): byte offsets and the magics, shared by the reader, the
// writer, the loaders of the Bloom filter's files (which name a set given in
// their place) and the tests that forge headers. Both kinds have one layout:
// the header, the rules section, the resume state (empty in a set file),
// then the keys section (format/set_key_codec.h).
#pragma once

#include <cstddef>
#include <cstdint>

namespace gdedup::set_file {

constexpr char kMagic[8] = {'G', 'D', 'E', 'D', 'U', 'P', 'E', 'S'};
constexpr char kCheckpointMagic[8] = {'G', 'D', 'E', 'D', 'U', 'P', 'E', 'C'};
constexpr uint32_t kVersion = 1;
constexpr uint64_t kHeaderBytes = 80;

// Field offsets in the header; every number little-endian.
constexpr size_t kOffMagic = 0;
constexpr size_t kOffVersion = 8;
constexpr size_t kOffHeaderBytes = 12;
constexpr size_t kOffKeyCount = 16;
constexpr size_t kOffRulesBytes = 24;
constexpr size_t kOffRulesChecksum = 32;
constexpr size_t kOffStateBytes = 40;  // 0 in a set file
constexpr size_t kOffStateChecksum = 48;  // 0 in a set file
constexpr size_t kOffKeysBytes = 56;
constexpr size_t kOffKeysChecksum = 64;
constexpr size_t kOffHeaderChecksum = 72;  // XXH3-64 of bytes 0 .. 71

}  // namespace gdedup::set_file
