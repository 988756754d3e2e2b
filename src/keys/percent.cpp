#include "keys/percent.h"

#include <cstring>

namespace gdedup::keys {
namespace {

// Decoding must not create an escape that was not there before, or a second
// run would decode it too: in "%%34" or "%4%31" the decoded "4" or "1" would
// complete a stray '%' into "%4?" or "%41". So a decoded hex digit is left
// escaped when it would follow a stray '%' (or a stray '%' and one hex digit)
// of this part. `floor` is where the part starts in `out`: parts are separated
// by delimiters, and query parameters may be reordered, so only bytes of the
// same part count.
bool would_complete_escape(const Out& out, size_t floor, unsigned char decoded) {
  if (!is_hex(decoded)) return false;
  const size_t n = out.size - floor;
  const char* end = out.data + out.size;
  if (n >= 1 && end[-1] == '%') return true;
  return n >= 2 && end[-2] == '%' && is_hex(static_cast<unsigned char>(end[-1]));
}

// Handles the '%' at part[i]; returns the index after what it consumed.
size_t copy_escape(std::string_view part, size_t i, const PercentRules& rules, bool lower,
                   size_t floor, Out& out) {
  if (i + 2 >= part.size() || !is_hex(static_cast<unsigned char>(part[i + 1])) ||
      !is_hex(static_cast<unsigned char>(part[i + 2]))) {
    out.put('%');
    return i + 1;
  }
  const char hi = part[i + 1];
  const char lo = part[i + 2];
  if (rules.decode_unreserved) {
    const auto decoded = static_cast<unsigned char>(
        hex_value(static_cast<unsigned char>(hi)) * 16 + hex_value(static_cast<unsigned char>(lo)));
    if (is_unreserved(decoded) && !would_complete_escape(out, floor, decoded)) {
      const char c = static_cast<char>(decoded);
      out.put(lower ? to_lower(c) : c);
      return i + 3;
    }
  }
  out.put('%');
  out.put(rules.uppercase ? to_upper(hi) : hi);
  out.put(rules.uppercase ? to_upper(lo) : lo);
  return i + 3;
}

}  // namespace

void copy_part(std::string_view part, const PercentRules& rules, bool lower, Out& out) {
  const size_t floor = out.size;
  const bool escapes = rules.uppercase || rules.decode_unreserved;
  if (!lower && !escapes) {
    out.put(part);
    return;
  }
  size_t i = 0;
  if (!lower) {
    // Paths and queries are long and mostly escape-free: copy whole runs.
    while (i < part.size()) {
      const void* hit = std::memchr(part.data() + i, '%', part.size() - i);
      const size_t j = hit ? static_cast<size_t>(static_cast<const char*>(hit) - part.data())
                           : part.size();
      out.put(part.substr(i, j - i));
      i = j;
      if (i < part.size()) i = copy_escape(part, i, rules, false, floor, out);
    }
    return;
  }
  char* d = out.data + out.size;
  while (i < part.size()) {
    const char c = part[i];
    if (c == '%') {
      out.size = static_cast<size_t>(d - out.data);
      i = copy_escape(part, i, rules, true, floor, out);
      d = out.data + out.size;
    } else {
      *d++ = to_lower(c);
      ++i;
    }
  }
  out.size = static_cast<size_t>(d - out.data);
}

}  // namespace gdedup::keys
