// Rewriting the host and port of a URL after its bytes have been copied.
#pragma once

#include <cstddef>

#include "keys/bytes.h"

namespace gdedup::keys {

struct HostPortRules {
  bool drop_host_dot = false;  // "example.com." -> "example.com"
  bool drop_www = false;       // "www.example.com" -> "example.com"
  // The scheme's default port ("http" 80), dropped when given; -1 for none.
  int default_port = -1;
  bool drop_empty_port = false;  // "host:" -> "host" (RFC 3986, 6.2.3)
};

// Rewrites out[from, out.size) -- the host and optional ":port", already
// lowercased and percent-processed -- in place, and shrinks out.size.
//
// Works on the copied bytes rather than the input because decoding can turn
// "a:8%30" into "a:80": parsing the input would see no port there and a
// second run would. A host that does not parse cleanly (a ':' or bracket in a
// plain host, "[...]" followed by anything but ":digits", a port with other
// bytes) is left as it is, so the rules never change how a later run splits
// it.
void rewrite_host_port(const HostPortRules& rules, size_t from, Out& out);

}  // namespace gdedup::keys
