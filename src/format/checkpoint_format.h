// The checkpoint file header (docs/FORMAT.md, "Checkpoint file"). The filter
// fields sit at the offsets of the filter file header, so both files share
// their field code; they describe the fixed filter or a growing filter's
// first layer. The checkpoint adds, after that bit array, the resume state,
// the growth and, for a filter of more than one layer, a layers section
// (format/layers_codec.h) of the layers after the first.
#pragma once

#include <cstddef>
#include <cstdint>

#include "format/filter_file_format.h"

namespace gdedup::checkpoint_file {

inline constexpr const char (&kMagic)[8] = filter_file::kCheckpointMagic;
// 3: the resume state names the output's temporary file; 4: and the record
// separator; 5: the growth and the later layers of a growing filter; 6: the
// filter file the job saves to, as it was when the job started; 7: the
// missing-key policy and count; 8: a Parquet output's footer.
constexpr uint32_t kVersion = 8;
// Version 4 still loads, as a fixed filter: it is version 5 with no growth
// section (its header bytes 96 .. 111 are reserved, so zero). Version 5
// still loads too: version 6 without the filter file in its state.
constexpr uint32_t kOldestVersion = 4;
constexpr uint64_t kHeaderBytes = filter_file::kHeaderBytes;

// Offsets 0 .. 80 are those of the filter file header.
constexpr size_t kOffMagic = filter_file::kOffMagic;
constexpr size_t kOffVersion = filter_file::kOffVersion;
constexpr size_t kOffHeaderBytes = filter_file::kOffHeaderBytes;
constexpr size_t kOffNumBlocks = filter_file::kOffNumBlocks;
constexpr size_t kOffBlockBits = filter_file::kOffBlockBits;
constexpr size_t kOffK = filter_file::kOffK;
constexpr size_t kOffSeed = filter_file::kOffSeed;
constexpr size_t kOffPayloadBytes = filter_file::kOffPayloadBytes;
constexpr size_t kOffInsertions = filter_file::kOffInsertions;
constexpr size_t kOffPlannedCapacity = filter_file::kOffPlannedCapacity;
constexpr size_t kOffPlannedFpr = filter_file::kOffPlannedFpr;
constexpr size_t kOffPayloadChecksum = filter_file::kOffPayloadChecksum;
constexpr size_t kOffStateBytes = 80;
constexpr size_t kOffStateChecksum = 88;
constexpr size_t kOffGrowthBytes = 96;
constexpr size_t kOffGrowthChecksum = 104;
constexpr size_t kOffReserved = 112;
constexpr size_t kOffHeaderChecksum = filter_file::kOffHeaderChecksum;

using filter_file::checksum_pieces;
using filter_file::decode_fields;
using filter_file::first_nonzero_byte;
using filter_file::get_f64;
using filter_file::get_u32;
using filter_file::get_u64;
using filter_file::header_checksum;
using filter_file::put_f64;
using filter_file::put_u32;
using filter_file::put_u64;
using filter_file::unusable_params;

}  // namespace gdedup::checkpoint_file
