// IPv6 addresses as Python's ipaddress module reads and writes them, which
// is how w3lib checks and rewrites the hosts in brackets of URLs.
#pragma once

#include <string>
#include <string_view>

namespace gdedup::keys {

// Appends str(ipaddress.IPv6Address(text)) to `out` (RFC 5952's short form:
// lowercase hex digits without leading zeros, the first longest run of two
// or more zero groups as "::", an embedded IPv4 address as two groups, a
// "%zone" kept) and returns true; returns false, appending nothing, where
// Python raises.
bool append_python_ipv6(std::string_view text, std::string& out);

}  // namespace gdedup::keys
