// The filter file header (docs/FORMAT.md, "Filter file"): byte offsets and
// little-endian field access, shared by the reader, the writer and the tests
// that forge headers. The checkpoint header (format/checkpoint_format.h)
// keeps the filter fields at these offsets, so the encoding and decoding of
// those fields below serve both files.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <string>

#include "gdedup/filter.h"
#include "gdedup/filter_file.h"

namespace gdedup::filter_file {

constexpr char kMagic[8] = {'G', 'D', 'E', 'D', 'U', 'P', 'B', 'F'};
// The checkpoint file's (format/checkpoint_format.h): a checkpoint given
// where a filter belongs is named as one, not as "bad magic".
constexpr char kCheckpointMagic[8] = {'G', 'D', 'E', 'D', 'U', 'P', 'C', 'K'};
// Version 1: one filter, its fields in the header. Version 2: the fields
// below kOffRulesBytes, then a rules section and a layers section. Version
// 3: version 2 with the record separator in the rules section. Version 4:
// version 3 with each bit array at a file offset that is a multiple of
// 4096, zero padding before it.
constexpr uint32_t kVersion1 = 1;
constexpr uint32_t kVersion2 = 2;
constexpr uint32_t kVersion4 = 4;
constexpr uint32_t kVersion = kFilterFileVersion;
// One page, so the bit array of a version 1 file can be mapped page-aligned.
constexpr uint64_t kHeaderBytes = 4096;

// Field offsets in the header.
constexpr size_t kOffMagic = 0;
constexpr size_t kOffVersion = 8;
constexpr size_t kOffHeaderBytes = 12;
constexpr size_t kOffNumBlocks = 16;
constexpr size_t kOffBlockBits = 24;
constexpr size_t kOffK = 28;
constexpr size_t kOffSeed = 32;
constexpr size_t kOffPayloadBytes = 40;
constexpr size_t kOffInsertions = 48;
constexpr size_t kOffPlannedCapacity = 56;
constexpr size_t kOffPlannedFpr = 64;
constexpr size_t kOffPayloadChecksum = 72;
constexpr size_t kOffReserved = 80;
constexpr size_t kOffHeaderChecksum = kHeaderBytes - 8;

// Version 2 to 4 header fields (offsets 0 .. 15 as above).
constexpr size_t kOffRulesBytes = 16;
constexpr size_t kOffRulesChecksum = 24;
constexpr size_t kOffLayersBytes = 32;
constexpr size_t kOffReservedV2 = 40;

// Explicit byte order, so the header reads the same on any host.
inline void put_u32(unsigned char* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}
inline void put_u64(unsigned char* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}
inline void put_f64(unsigned char* p, double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  put_u64(p, bits);
}
inline uint32_t get_u32(const unsigned char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
inline uint64_t get_u64(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
inline double get_f64(const unsigned char* p) {
  const uint64_t bits = get_u64(p);
  double v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

// XXH3-64 (seed 0) of header bytes [0, kOffHeaderChecksum).
uint64_t header_checksum(const unsigned char* header);

// The fields from kOffNumBlocks to kOffReserved: the filter's parameters and
// counters and the size and checksum of the bit array that follows the header.
struct FilterFields {
  FilterParams params;
  FilterCounters counters;
  uint64_t payload_bytes = 0;
  uint64_t payload_checksum = 0;
};
// They take these bytes, in the order of the header; a layer table entry of
// version 2 (format/layers_codec.h) holds them in the same order.
constexpr size_t kFieldsBytes = kOffReserved - kOffNumBlocks;

// Writes `fields` at `at` (kFieldsBytes), the bit array size from the params.
void put_fields(unsigned char* at, const FilterParams& params, const FilterCounters& counters,
                uint64_t payload_checksum);
// The fields stored at `at`; nothing is checked.
FilterFields get_fields(const unsigned char* at);

// Zeroes the kHeaderBytes of `header`, then writes the 8 bytes of `magic`,
// `version`, the header size and the filter fields (the bit array size from
// `params`).
// The caller adds the fields of its own kind, then calls seal_header.
void encode_header(unsigned char* header, const char* magic, uint32_t version,
                   const FilterParams& params, const FilterCounters& counters,
                   uint64_t payload_checksum);
// Writes the header checksum over everything before it.
void seal_header(unsigned char* header);

// The filter fields as stored; nothing is checked.
FilterFields decode_fields(const unsigned char* header);

// Why `params` describe a filter this program cannot use, in words that
// follow the file's name; nullopt when they are usable.
std::optional<std::string> unusable_params(const FilterParams& params);

// The offset of the first nonzero byte of [from, kOffHeaderChecksum), or
// kOffHeaderChecksum when all of them are zero.
size_t first_nonzero_byte(const unsigned char* header, size_t from);

// Walks [0, size) of `bytes` in pieces of at most `piece` bytes: calls
// `transfer(offset, length)` for each piece (to read it into `bytes` or to
// write it out from there), then adds the piece to an XXH3-64 hash, which it
// returns. Bit array checksums are computed this way on save and load.
uint64_t checksum_pieces(const unsigned char* bytes, uint64_t size, uint64_t piece,
                         const std::function<void(uint64_t offset, uint64_t length)>& transfer);
// The same where the bytes are not in one buffer: `next(offset, length)`
// hands over bytes [offset, offset + length) of the array (valid until the
// next call), which are then hashed. A bit array shared by the ranks of an
// MPI job is saved and verified this way, a piece at a time.
uint64_t checksum_stream(uint64_t size, uint64_t piece,
                         const std::function<const unsigned char*(uint64_t offset,
                                                                  uint64_t length)>& next);

}  // namespace gdedup::filter_file
