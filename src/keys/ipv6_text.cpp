#include "keys/ipv6_text.h"

#include <cstdint>
#include <vector>

#include "keys/bytes.h"

namespace gdedup::keys {
namespace {

// IPv4Address's rules: four decimal octets, each 1 to 3 digits, at most
// 255, no leading zero.
bool parse_ipv4(std::string_view s, uint32_t& value) {
  value = 0;
  for (int octet = 0; octet < 4; ++octet) {
    const size_t dot = s.find('.');
    if ((octet < 3) == (dot == std::string_view::npos)) return false;
    const std::string_view digits = s.substr(0, dot);
    if (digits.empty() || digits.size() > 3 || (digits.size() > 1 && digits[0] == '0')) {
      return false;
    }
    uint32_t n = 0;
    for (const char c : digits) {
      if (!is_digit(static_cast<unsigned char>(c))) return false;
      n = n * 10 + static_cast<uint32_t>(c - '0');
    }
    if (n > 255) return false;
    value = value << 8 | n;
    if (octet < 3) s.remove_prefix(dot + 1);
  }
  return true;
}

bool parse_hextet(std::string_view s, uint16_t& value) {
  if (s.empty() || s.size() > 4) return false;
  value = 0;
  for (const char c : s) {
    if (!is_hex(static_cast<unsigned char>(c))) return false;
    value = static_cast<uint16_t>(value << 4 | hex_value(static_cast<unsigned char>(c)));
  }
  return true;
}

// _BaseV6._ip_int_from_string, step for step.
bool parse_groups(std::string_view s, uint16_t (&groups)[8]) {
  std::vector<std::string_view> parts;
  while (true) {
    const size_t colon = s.find(':');
    parts.push_back(s.substr(0, colon));
    if (colon == std::string_view::npos) break;
    s.remove_prefix(colon + 1);
  }
  if (parts.size() < 3) return false;
  char ipv4_text[2][5];
  if (parts.back().find('.') != std::string_view::npos) {
    uint32_t v4 = 0;
    if (!parse_ipv4(parts.back(), v4)) return false;
    parts.pop_back();
    for (int i = 0; i < 2; ++i) {
      const uint32_t half = i == 0 ? v4 >> 16 : v4 & 0xFFFF;
      int n = 0;
      for (int shift = 12; shift >= 0; shift -= 4) {
        if (n > 0 || (half >> shift & 15) != 0 || shift == 0) {
          ipv4_text[i][n++] = "0123456789abcdef"[half >> shift & 15];
        }
      }
      parts.emplace_back(ipv4_text[i], static_cast<size_t>(n));
    }
  }
  if (parts.size() > 9) return false;
  size_t skip = 0;  // 0: no "::"
  for (size_t i = 1; i + 1 < parts.size(); ++i) {
    if (parts[i].empty()) {
      if (skip != 0) return false;
      skip = i;
    }
  }
  size_t hi = parts.size();
  size_t lo = 0;
  if (skip != 0) {
    hi = skip;
    lo = parts.size() - skip - 1;
    if (parts[0].empty() && --hi != 0) return false;
    if (parts.back().empty() && --lo != 0) return false;
    if (hi + lo > 7) return false;
  } else if (parts.size() != 8) {
    return false;
  }
  size_t g = 0;
  for (size_t i = 0; i < hi; ++i) {
    if (!parse_hextet(parts[i], groups[g++])) return false;
  }
  while (g < 8 - lo) groups[g++] = 0;
  for (size_t i = parts.size() - lo; i < parts.size(); ++i) {
    if (!parse_hextet(parts[i], groups[g++])) return false;
  }
  return true;
}

}  // namespace

bool append_python_ipv6(std::string_view text, std::string& out) {
  if (text.find('/') != std::string_view::npos) return false;
  const size_t percent = text.find('%');
  std::string_view zone;
  if (percent != std::string_view::npos) {
    zone = text.substr(percent + 1);
    if (zone.empty() || zone.find('%') != std::string_view::npos) return false;
    text = text.substr(0, percent);
  }
  if (text.empty()) return false;
  uint16_t groups[8];
  if (!parse_groups(text, groups)) return false;
  // The first longest run of zero groups, if two or more long, becomes "::".
  int best = -1;
  int best_size = 1;
  for (int i = 0; i < 8;) {
    int j = i;
    while (j < 8 && groups[j] == 0) ++j;
    if (j - i > best_size) {
      best = i;
      best_size = j - i;
    }
    i = j == i ? i + 1 : j;
  }
  for (int i = 0; i < 8; ++i) {
    if (i == best) {
      out += "::";
      i += best_size - 1;
      continue;
    }
    if (i > 0 && i != best + best_size) out += ':';
    static constexpr char kDigits[] = "0123456789abcdef";
    bool started = false;
    for (int shift = 12; shift >= 0; shift -= 4) {
      const int d = groups[i] >> shift & 15;
      if (started || d != 0 || shift == 0) {
        out += kDigits[d];
        started = true;
      }
    }
  }
  if (percent != std::string_view::npos) {
    out += '%';
    out += zone;
  }
  return true;
}

}  // namespace gdedup::keys
