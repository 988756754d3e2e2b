// Numbers as gdedup's messages print them, so that the library, the command
// line and the Python package say the same number the same way.
#pragma once

#include <cstdint>
#include <string>

namespace gdedup {

// 1234567 -> "1,234,567".
std::string group_digits(uint64_t value);
// A seed or checksum: 0x6764656475700001 -> "0x6764656475700001".
std::string hex64(uint64_t value);
// A false-positive rate in the form users give it: 1e-04 -> "1.00e-04",
// 0.25 -> "0.25"; "0" and "1" (infinite) as such.
std::string format_rate(double rate);

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

}  // namespace gdedup
