#include "cli/numbers.h"

#include <cmath>
#include <cstdio>
#include <limits>

#include "gdedup/error.h"

namespace gdedup::cli {
namespace {

using u128 = unsigned __int128;

// A decimal number as written: digits * 10^exp10, exactly. Kept exact so
// that "18446744073709551615" and "1.5K" need no floating point.
struct Decimal {
  u128 digits = 0;
  int exp10 = 0;
};

[[noreturn]] void refuse(std::string_view option, std::string_view text, const std::string& why) {
  throw UsageError(std::string(option) + " " + std::string(text) + ": " + why);
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Reads the number at the start of `s` ("12", "1.5", "1e9", ".5e-3") and
// leaves the suffix in `s`. False when there is no number or it has more
// digits than we can hold exactly.
bool read_decimal(std::string_view& s, Decimal& out) {
  size_t i = 0;
  bool any = false;
  bool seen_dot = false;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '_' && i > 0 && is_digit(s[i - 1]) && i + 1 < s.size() && is_digit(s[i + 1])) {
      continue;  // 1_000_000
    }
    if (c == '.' && !seen_dot) {
      seen_dot = true;
      continue;
    }
    if (!is_digit(c)) break;
    any = true;
    if (out.digits == 0 && c == '0') {
      if (seen_dot) --out.exp10;
      continue;
    }
    if (out.digits > (u128{1} << 120)) return false;  // ~36 significant digits
    out.digits = out.digits * 10 + static_cast<unsigned>(c - '0');
    if (seen_dot) --out.exp10;
  }
  if (!any) return false;
  // An exponent only when digits follow: "2E" is not "2e0".
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    size_t j = i + 1;
    bool negative = false;
    if (j < s.size() && (s[j] == '+' || s[j] == '-')) negative = s[j++] == '-';
    if (j < s.size() && is_digit(s[j])) {
      int e = 0;
      for (; j < s.size() && is_digit(s[j]); ++j) {
        if (e < 10000) e = e * 10 + (s[j] - '0');
      }
      out.exp10 += negative ? -e : e;
      i = j;
    }
  }
  s.remove_prefix(i);
  return true;
}

// digits * 10^exp10 as an integer, or false when it is not whole or does not
// fit in 64 bits.
bool to_integer(Decimal d, uint64_t& out, bool& fractional) {
  fractional = false;
  if (d.digits == 0) {
    out = 0;
    return true;
  }
  while (d.exp10 < 0 && d.digits % 10 == 0) {
    d.digits /= 10;
    ++d.exp10;
  }
  if (d.exp10 < 0) {
    fractional = true;
    return false;
  }
  const u128 max = std::numeric_limits<uint64_t>::max();
  for (int e = 0; e < d.exp10; ++e) {
    if (d.digits > max) return false;
    d.digits *= 10;
  }
  if (d.digits > max) return false;
  out = static_cast<uint64_t>(d.digits);
  return true;
}

bool ieq(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const char x = (a[i] >= 'A' && a[i] <= 'Z') ? static_cast<char>(a[i] + 32) : a[i];
    const char y = (b[i] >= 'A' && b[i] <= 'Z') ? static_cast<char>(b[i] + 32) : b[i];
    if (x != y) return false;
  }
  return true;
}

// Position of a K/M/G/T letter (1..4), 0 for none, -1 for an unknown suffix.
int scale_letter(char c) {
  switch (c) {
    case 'k': case 'K': return 1;
    case 'm': case 'M': return 2;
    case 'g': case 'G': return 3;
    case 't': case 'T': return 4;
    default: return -1;
  }
}

Decimal parse_number(std::string_view text, std::string_view option, std::string_view& suffix,
                     const char* example) {
  if (text.empty()) refuse(option, "''", std::string("expected a number such as ") + example);
  if (text[0] == '-') refuse(option, text, "must not be negative");
  std::string_view s = text;
  if (s[0] == '+') s.remove_prefix(1);
  Decimal d;
  if (!read_decimal(s, d)) {
    refuse(option, text, std::string("expected a number such as ") + example);
  }
  suffix = s;
  return d;
}

}  // namespace

uint64_t parse_count(std::string_view text, std::string_view option) {
  const char* example = "1000000, 1e9, 500M or 2G";
  std::string_view suffix;
  Decimal d = parse_number(text, option, suffix, example);
  if (!suffix.empty()) {
    const int scale = suffix.size() == 1 ? scale_letter(suffix[0]) : -1;
    if (scale < 0) {
      refuse(option, text,
             "unknown suffix '" + std::string(suffix) +
                 "'; counts take K, M, G or T (powers of 1000), e.g. " + example);
    }
    d.exp10 += 3 * scale;
  }
  uint64_t value = 0;
  bool fractional = false;
  if (!to_integer(d, value, fractional)) {
    refuse(option, text, fractional ? "is not a whole number" : "is too large (at most 2^64 - 1)");
  }
  return value;
}

uint64_t parse_bytes(std::string_view text, std::string_view option) {
  const char* example = "4G, 512MiB, 1.5GiB or 1073741824";
  std::string_view suffix;
  Decimal d = parse_number(text, option, suffix, example);
  int scale = 0;
  if (!suffix.empty() && !ieq(suffix, "b")) {
    scale = scale_letter(suffix[0]);
    std::string_view rest = suffix.substr(1);
    if (scale > 0 && (rest == "B" || rest == "b")) {
      refuse(option, text,
             "'" + std::string(suffix) + "' is ambiguous (powers of 1000 or 1024?); write " +
                 std::string(1, suffix[0]) + " or " + std::string(1, suffix[0]) +
                 "iB, which mean powers of 1024");
    }
    if (scale < 0 || !(rest.empty() || ieq(rest, "ib"))) {
      refuse(option, text,
             "unknown suffix '" + std::string(suffix) +
                 "'; byte sizes take K, M, G, T or KiB, MiB, GiB, TiB (powers of 1024), e.g. " +
                 example);
    }
  }
  // Whole bytes exactly when possible; a fraction ("1.5GiB") through long
  // double, whose 64-bit mantissa holds any byte count exactly.
  uint64_t base = 0;
  bool fractional = false;
  const uint64_t max = std::numeric_limits<uint64_t>::max();
  if (to_integer(d, base, fractional)) {
    u128 value = base;
    for (int i = 0; i < scale; ++i) {
      value *= 1024;
      if (value > max) refuse(option, text, "is too large (at most 2^64 - 1 bytes)");
    }
    return static_cast<uint64_t>(value);
  }
  if (!fractional) refuse(option, text, "is too large (at most 2^64 - 1 bytes)");
  // "1.5" alone is a byte and a half: almost surely a unit was forgotten.
  if (scale == 0) {
    refuse(option, text, "is not a whole number of bytes; add a unit, as in " +
                             std::string(text) + "G or " + std::string(text) + "M");
  }
  long double value = static_cast<long double>(d.digits) * std::pow(10.0L, d.exp10) *
                      std::pow(1024.0L, scale);
  if (!(value < 18446744073709551616.0L)) {
    refuse(option, text, "is too large (at most 2^64 - 1 bytes)");
  }
  return static_cast<uint64_t>(std::floor(value));
}

uint64_t parse_memory_cap(std::string_view text, std::string_view option) {
  const uint64_t bytes = parse_bytes(text, option);
  if (bytes == 0) {
    refuse(option, text,
           "a cap of 0 bytes holds no filter or set; give the most bytes it may take, or "
           "leave " + std::string(option) + " out for no cap");
  }
  return bytes;
}

double parse_rate(std::string_view text, std::string_view option) {
  std::string_view suffix;
  const Decimal d = parse_number(text, option, suffix, "1e-4 or 0.001");
  if (!suffix.empty()) {
    refuse(option, text, "expected a probability such as 1e-4 or 0.001 (no suffix)");
  }
  return static_cast<double>(static_cast<long double>(d.digits) * std::pow(10.0L, d.exp10));
}

double parse_fpr(std::string_view text, std::string_view option) {
  const double value = parse_rate(text, option);
  if (!(value > 0.0 && value < 1.0)) {
    refuse(option, text, "must be between 0 and 1 (exclusive), e.g. 1e-4");
  }
  return value;
}

}  // namespace gdedup::cli
