// Where the members of a gzip file or the frames of a zstd file start, read
// from headers (compressed_pieces.h says which format gets which search).
// Each returns the starts it chose, in file order, each at least
// `target_bytes` after the one before (0 counts as the first): the starts
// of the pieces after the first. A search that meets anything unexpected
// (damage, truncation, trailing bytes) stops there, so the rest of the file
// stays in the last piece, where its decoder reports it.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "io/random_access.h"

namespace gdedup::io {

// Null when the file does not start with a BGZF member.
std::optional<std::vector<uint64_t>> bgzf_member_starts(const RandomAccessInput& input,
                                                        uint64_t target_bytes);

// Candidates only: each is a gzip header followed by 16 KiB that decode
// without error, which a header pattern inside a member's data may also be.
std::vector<uint64_t> gzip_member_starts(const RandomAccessInput& input, uint64_t target_bytes);

std::vector<uint64_t> zstd_frame_starts(const RandomAccessInput& input, uint64_t target_bytes);

}  // namespace gdedup::io
