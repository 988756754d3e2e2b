// The header fields that filter files and checkpoint files share
// (docs/FORMAT.md, "Filter file" and "Checkpoint file").
#include "format/filter_file_format.h"

#include <algorithm>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "gdedup/error.h"

namespace gdedup::filter_file {

namespace {

// Where a header field lies within the fields (kOffNumBlocks ..).
constexpr size_t in_fields(size_t header_offset) { return header_offset - kOffNumBlocks; }

}  // namespace

uint64_t header_checksum(const unsigned char* header) {
  return XXH3_64bits(header, kOffHeaderChecksum);
}

void put_fields(unsigned char* at, const FilterParams& params, const FilterCounters& counters,
                uint64_t payload_checksum) {
  put_u64(at + in_fields(kOffNumBlocks), params.num_blocks);
  put_u32(at + in_fields(kOffBlockBits), params.layout.block_bits);
  put_u32(at + in_fields(kOffK), params.layout.k);
  put_u64(at + in_fields(kOffSeed), params.seed);
  put_u64(at + in_fields(kOffPayloadBytes), params.bytes());
  put_u64(at + in_fields(kOffInsertions), counters.insertions);
  put_u64(at + in_fields(kOffPlannedCapacity), counters.planned_capacity);
  put_f64(at + in_fields(kOffPlannedFpr), counters.planned_fpr);
  put_u64(at + in_fields(kOffPayloadChecksum), payload_checksum);
}

FilterFields get_fields(const unsigned char* at) {
  FilterFields f;
  f.params.num_blocks = get_u64(at + in_fields(kOffNumBlocks));
  f.params.layout.block_bits = get_u32(at + in_fields(kOffBlockBits));
  f.params.layout.k = get_u32(at + in_fields(kOffK));
  f.params.seed = get_u64(at + in_fields(kOffSeed));
  f.counters.insertions = get_u64(at + in_fields(kOffInsertions));
  f.counters.planned_capacity = get_u64(at + in_fields(kOffPlannedCapacity));
  f.counters.planned_fpr = get_f64(at + in_fields(kOffPlannedFpr));
  f.payload_bytes = get_u64(at + in_fields(kOffPayloadBytes));
  f.payload_checksum = get_u64(at + in_fields(kOffPayloadChecksum));
  return f;
}

void encode_header(unsigned char* header, const char* magic, uint32_t version,
                   const FilterParams& params, const FilterCounters& counters,
                   uint64_t payload_checksum) {
  std::memset(header, 0, kHeaderBytes);
  std::memcpy(header + kOffMagic, magic, sizeof kMagic);
  put_u32(header + kOffVersion, version);
  put_u32(header + kOffHeaderBytes, static_cast<uint32_t>(kHeaderBytes));
  put_fields(header + kOffNumBlocks, params, counters, payload_checksum);
}

void seal_header(unsigned char* header) {
  put_u64(header + kOffHeaderChecksum, header_checksum(header));
}

FilterFields decode_fields(const unsigned char* header) {
  return get_fields(header + kOffNumBlocks);
}

std::optional<std::string> unusable_params(const FilterParams& params) {
  try {
    params.validate();
  } catch (const UsageError& e) {
    return std::string("describes a filter this program cannot use: ") + e.what();
  }
  return std::nullopt;
}

size_t first_nonzero_byte(const unsigned char* header, size_t from) {
  for (size_t i = from; i < kOffHeaderChecksum; ++i) {
    if (header[i] != 0) return i;
  }
  return kOffHeaderChecksum;
}

uint64_t checksum_pieces(const unsigned char* bytes, uint64_t size, uint64_t piece,
                         const std::function<void(uint64_t offset, uint64_t length)>& transfer) {
  return checksum_stream(size, piece, [&](uint64_t done, uint64_t n) {
    transfer(done, n);
    return bytes + done;
  });
}

uint64_t checksum_stream(uint64_t size, uint64_t piece,
                         const std::function<const unsigned char*(uint64_t offset,
                                                                  uint64_t length)>& next) {
  XXH3_state_t state;
  XXH3_INITSTATE(&state);
  XXH3_64bits_reset(&state);
  for (uint64_t done = 0; done < size;) {
    const uint64_t n = std::min(size - done, piece);
    XXH3_64bits_update(&state, next(done, n), static_cast<size_t>(n));
    done += n;
  }
  return XXH3_64bits_digest(&state);
}

}  // namespace gdedup::filter_file
