// The "scrapy" normalization: w3lib.url.canonicalize_url with its defaults,
// as Scrapy's request fingerprinter and duplicate filter apply it, byte for
// byte (docs/KEYS.md lists where it differs and why).
#pragma once

#include <string>
#include <string_view>

namespace gdedup::keys {

// Writes the canonical form of `url` into `out` (replacing what it held) and
// returns true; returns false, leaving `out` unspecified, for the keys on
// which canonicalize_url raises (a port that is not a number from 0 to 65535,
// a bad host in brackets, an authority that NFKC gives a delimiter) and for
// the keys it hands to code this function does not copy (brackets that are
// not around the host). The caller then keeps the key as it is.
bool scrapy_canonicalize(std::string_view url, bool keep_fragments, std::string& out);

}  // namespace gdedup::keys
