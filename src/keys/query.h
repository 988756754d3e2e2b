// Rewriting the query of a URL: dropping and sorting parameters.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "keys/bytes.h"
#include "keys/glob.h"
#include "keys/percent.h"

namespace gdedup::keys {

struct QueryRules {
  PercentRules percent;
  bool lower = false;
  bool sort = false;                    // stable by name: "b=1&a=2&a=1" -> "a=2&a=1&b=1"
  NameFilter drop;                      // parameter names to remove

  bool rewrites() const { return sort || !drop.empty(); }
};

// Appends "?" + the query (given without its '?') to `out`. When the rules
// rewrite the query, empty parameters ("a=1&&b=2") are removed as well, and
// a query left with no parameters loses its '?'. `out` must have room for
// twice the query plus 2 bytes: sorting builds the result behind the
// parameters before moving it into place.
void copy_query(std::string_view query, const QueryRules& rules, Out& out);

}  // namespace gdedup::keys
