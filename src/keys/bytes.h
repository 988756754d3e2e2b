// Byte classes and an unchecked output cursor shared by the URL rewrites.
// Everything is ASCII and locale-free: keys are arbitrary bytes.
#pragma once

#include <cstddef>
#include <cstring>
#include <string_view>

namespace gdedup::keys {

inline bool is_space_or_control(unsigned char c) { return c <= 0x20; }
inline bool is_upper(unsigned char c) { return c >= 'A' && c <= 'Z'; }
inline bool is_alpha(unsigned char c) { return is_upper(c) || (c >= 'a' && c <= 'z'); }
inline bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
inline bool is_hex(unsigned char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
inline int hex_value(unsigned char c) {
  return is_digit(c) ? c - '0' : (c | 0x20) - 'a' + 10;
}
// RFC 3986 unreserved: the bytes whose escaped and plain forms are equivalent.
inline bool is_unreserved(unsigned char c) {
  return is_alpha(c) || is_digit(c) || c == '-' || c == '.' || c == '_' || c == '~';
}
inline char to_lower(char c) {
  // Branch-free: this runs on every byte of every lowercased host.
  return static_cast<char>(c + (is_upper(static_cast<unsigned char>(c)) << 5));
}

// Byte sets as 256-entry tables: one load per byte in the scanning loops,
// which run on every record.
struct ByteSet {
  bool has[256] = {};
  constexpr explicit ByteSet(const char* bytes) {
    for (; *bytes != '\0'; ++bytes) has[static_cast<unsigned char>(*bytes)] = true;
  }
  constexpr bool operator[](char c) const { return has[static_cast<unsigned char>(c)]; }
};
inline char to_upper(char c) {
  return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 32) : c;
}

inline bool is_ascii(std::string_view s) {
  for (const char c : s) {
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  }
  return true;
}

inline bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (to_lower(a[i]) != to_lower(b[i])) return false;
  }
  return true;
}

inline std::string_view trim_spaces(std::string_view s) {
  size_t b = 0;
  size_t e = s.size();
  while (b < e && is_space_or_control(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && is_space_or_control(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

// Writes into a buffer the caller has sized for the worst case beforehand,
// so the per-byte path has no capacity checks and never allocates.
// Loops that write many bytes should keep the cursor in a local: a char
// store may alias `size`, which defeats register allocation.
struct Out {
  char* data;
  size_t size = 0;

  void put(char c) { data[size++] = c; }
  void put(std::string_view s) {
    if (!s.empty()) std::memcpy(data + size, s.data(), s.size());
    size += s.size();
  }
  std::string_view view(size_t from, size_t to) const { return {data + from, to - from}; }
};

}  // namespace gdedup::keys
