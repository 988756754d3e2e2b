// Matching query-parameter names against drop-params patterns.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gdedup::keys {

// True when `name` matches `pattern`, where '*' matches any run of bytes
// (including none) and every other byte matches itself, ASCII case ignored.
// `pattern` must already be lowercase. A mismatch after a '*' retries from
// the last '*' only, so the cost is at most pattern size times name size.
bool glob_match(std::string_view pattern, std::string_view name);

// A set of lowercase patterns, checked against every parameter of every
// URL: most names are rejected by their first byte, and the usual plain
// names and "prefix*" patterns are compared without the general matcher.
class NameFilter {
 public:
  NameFilter() = default;
  explicit NameFilter(const std::vector<std::string>& patterns);

  bool empty() const { return patterns_.empty(); }
  bool matches(std::string_view name) const;

 private:
  enum class Kind { kExact, kPrefix, kGlob };
  struct Pattern {
    std::string text;  // for kPrefix, without the trailing '*'
    Kind kind;
  };
  std::vector<Pattern> patterns_;
  bool first_[256] = {};  // lowercase first bytes that some pattern accepts
};

}  // namespace gdedup::keys
