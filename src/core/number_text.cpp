#include "gdedup/number_text.h"

#include <cmath>
#include <cstdio>

namespace gdedup {

std::string group_digits(uint64_t value) {
  const std::string digits = std::to_string(value);
  std::string out;
  const size_t n = digits.size();
  for (size_t i = 0; i < n; ++i) {
    if (i > 0 && (n - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string hex64(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%016llx", static_cast<unsigned long long>(value));
  return text;
}

std::string format_rate(double rate) {
  if (std::isinf(rate)) return "1";
  if (rate == 0) return "0";
  char text[32];
  std::snprintf(text, sizeof text, rate >= 0.01 ? "%.3g" : "%.2e", rate);
  return text;
}

}  // namespace gdedup
