// Numbers as users type them on the command line, and as the tool prints
// them back. Counts (--capacity, --batch) take decimal suffixes K/M/G/T
// (powers of 1000) and scientific notation, because key counts are decimal
// ("a billion URLs"); byte sizes (--memory) take binary suffixes K/M/G/T or
// KiB/MiB/GiB/TiB (powers of 1024), because memory is sized in powers of two.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "gdedup/number_text.h"  // group_digits, hex64, format_rate

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

// A probability strictly between 0 and 1: "1e-4", "0.0001".
double parse_fpr(std::string_view text, std::string_view option);

// 2812000000 -> "2.62 GiB"; below 1 KiB, "512 B".
std::string human_bytes(uint64_t bytes);
// 12300000 -> "12.3M", for rates and progress; below 1000 as is.
std::string human_count(double value);
// 0.1234 -> "12.34%"; small fractions keep four decimals.
std::string format_percent(double fraction);
// False when a filter's fill gives no key estimate (every bit is set).
bool keys_estimable(double keys);
// An estimated key count with its noun: "~1,234 distinct keys", or "an
// unknown number of distinct keys (every bit is set)" when infinite.
std::string approx_keys(double keys, const std::string& noun);
// A count with its noun, singular for one: "1 block", "2,000 blocks".
std::string counted(uint64_t count, const std::string& noun);
// Seconds as "0:12", "1:02:03".
std::string format_duration(double seconds);

}  // namespace gdedup::cli
