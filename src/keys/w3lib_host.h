// What w3lib 2.5.0 does to an authority whose text is not all ASCII: the
// NFKC check urlsplit makes on it (_checknetloc), and the host
// canonicalize_url writes (lowercased, through _idna, which falls back to
// the host as it was where the IDNA codec raises). docs/KEYS.md states
// these rules.
#pragma once

#include <string>
#include <string_view>

namespace gdedup::keys {

// The arguments are valid UTF-8 (w3lib's text, where a byte that is not
// part of a UTF-8 character is written as %XX).

// True where w3lib raises on `authority`: its NFKC form, taken without its
// '@', ':', '#' and '?', differs from it and holds '/', '?', '#', '@', ':'
// or '\'.
bool nfkc_adds_delimiter(std::string_view authority);

// Appends `host` as canonicalize_url writes it: in punycode where Python's
// IDNA codec takes it, else as it was, lowercased.
void append_w3lib_host(std::string_view host, std::string& out);

}  // namespace gdedup::keys
