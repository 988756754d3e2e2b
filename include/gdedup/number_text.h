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

}  // namespace gdedup
