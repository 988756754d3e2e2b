// Numbers as users type them on the command line, and as the tool prints
// them back. Counts (--capacity, --batch) take decimal suffixes K/M/G/T
// (powers of 1000) and scientific notation, because key counts are decimal
// ("a billion URLs"); byte sizes (--memory) take binary suffixes K/M/G/T or
// KiB/MiB/GiB/TiB (powers of 1024), because memory is sized in powers of two.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "gdedup/frontend/number_text.h"  // the numbers as messages print them

namespace gdedup::cli {

// "1000000", "1e9", "500M", "2.5G", "1_000_000". Refuses negatives, fractions
// ("1.5" is not a count; "1.5K" is), values of 2^64 or more, and anything
// else, with a UsageError naming `option` and the value.
uint64_t parse_count(std::string_view text, std::string_view option);

// "4G", "512MiB", "1.5GiB", "4096", "4096B". A fraction without a unit
// ("1.5") is refused; with one, fractions of a byte are dropped ("0.3K" is
// 307).
// "GB"-style suffixes are refused as ambiguous (1000^3 or 1024^3?).
uint64_t parse_bytes(std::string_view text, std::string_view option);

// A cap on bytes (--max-memory), read as parse_bytes reads it: 0 is refused,
// since a cap of no bytes holds nothing and the job takes 0 for no cap at
// all, which is what leaving the option out gives.
uint64_t parse_memory_cap(std::string_view text, std::string_view option);

// A decimal number without a suffix: "1e-4", "0.0001". A job checks the
// rate it is given itself (check_job_sizing).
double parse_rate(std::string_view text, std::string_view option);

// parse_rate's number, strictly between 0 and 1 (for gdedup bench).
double parse_fpr(std::string_view text, std::string_view option);

}  // namespace gdedup::cli
