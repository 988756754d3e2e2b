#include "keys/glob.h"

#include <cstddef>
#include <string>

namespace gdedup::keys {
namespace {

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

}  // namespace

bool glob_match(std::string_view pattern, std::string_view name) {
  size_t p = 0;
  size_t n = 0;
  size_t star = std::string_view::npos;  // pattern index just after the last '*'
  size_t resume = 0;                     // name index that '*' will grow to cover
  while (n < name.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = ++p;
      resume = n;
    } else if (p < pattern.size() && pattern[p] == lower(name[n])) {
      ++p;
      ++n;
    } else if (star != std::string_view::npos) {
      p = star;
      n = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

namespace {

bool iequals_lower(std::string_view lower_pattern, std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    if (lower_pattern[i] != lower(s[i])) return false;
  }
  return true;
}

}  // namespace

NameFilter::NameFilter(const std::vector<std::string>& patterns) {
  for (const std::string& p : patterns) {
    const size_t star = p.find('*');
    if (star == std::string::npos) {
      patterns_.push_back({p, Kind::kExact});
    } else if (star == p.size() - 1) {
      patterns_.push_back({p.substr(0, star), Kind::kPrefix});
    } else {
      patterns_.push_back({p, Kind::kGlob});
    }
    if (p.empty() || p[0] == '*') {
      for (bool& f : first_) f = true;
    } else {
      first_[static_cast<unsigned char>(p[0])] = true;
    }
  }
}

bool NameFilter::matches(std::string_view name) const {
  if (patterns_.empty()) return false;
  if (!name.empty() && !first_[static_cast<unsigned char>(lower(name[0]))]) return false;
  for (const Pattern& p : patterns_) {
    switch (p.kind) {
      case Kind::kExact:
        if (name.size() == p.text.size() && iequals_lower(p.text, name)) return true;
        break;
      case Kind::kPrefix:
        if (name.size() >= p.text.size() && iequals_lower(p.text, name.substr(0, p.text.size())))
          return true;
        break;
      case Kind::kGlob:
        if (glob_match(p.text, name)) return true;
        break;
    }
  }
  return false;
}

}  // namespace gdedup::keys
