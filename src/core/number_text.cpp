#include "gdedup/frontend/number_text.h"

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

std::string human_bytes(uint64_t bytes) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return std::to_string(bytes) + " B";
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024.0 && unit < 6) {
    value /= 1024.0;
    ++unit;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, value < 10 ? "%.2f %s" : value < 100 ? "%.1f %s" : "%.0f %s",
                value, kUnits[unit]);
  return buf;
}

std::string human_count(double value) {
  static const char* const kUnits[] = {"", "k", "M", "G", "T", "P"};
  if (!(value >= 0) || !std::isfinite(value)) return "?";
  int unit = 0;
  while (value >= 999.5 && unit < 5) {
    value /= 1000.0;
    ++unit;
  }
  char buf[32];
  if (unit == 0) {
    std::snprintf(buf, sizeof buf, "%.0f", value);
  } else {
    std::snprintf(buf, sizeof buf, value < 10 ? "%.2f%s" : value < 100 ? "%.1f%s" : "%.0f%s",
                  value, kUnits[unit]);
  }
  return buf;
}

std::string format_percent(double fraction) {
  char buf[48];
  std::snprintf(buf, sizeof buf, fraction < 0.001 && fraction > 0 ? "%.4f%%" : "%.2f%%",
                fraction * 100);
  return buf;
}

bool keys_estimable(double keys) { return std::isfinite(keys) && keys < 1.8e19; }

std::string approx_keys(double keys, const std::string& noun) {
  if (!keys_estimable(keys)) {
    return "an unknown number of " + noun + " (every bit is set)";
  }
  return "~" + group_digits(static_cast<uint64_t>(std::llround(keys))) + " " + noun;
}

std::string counted(uint64_t count, const std::string& noun) {
  return group_digits(count) + " " + noun + (count == 1 ? "" : "s");
}

std::string format_duration(double seconds) {
  if (!(seconds >= 0) || seconds > 1e9) return "?";
  const uint64_t s = static_cast<uint64_t>(seconds + 0.5);
  char buf[32];
  if (s >= 3600) {
    std::snprintf(buf, sizeof buf, "%llu:%02llu:%02llu", static_cast<unsigned long long>(s / 3600),
                  static_cast<unsigned long long>(s / 60 % 60),
                  static_cast<unsigned long long>(s % 60));
  } else {
    std::snprintf(buf, sizeof buf, "%llu:%02llu", static_cast<unsigned long long>(s / 60),
                  static_cast<unsigned long long>(s % 60));
  }
  return buf;
}

}  // namespace gdedup
