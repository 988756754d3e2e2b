#include "keys/host_port.h"

#include <cstring>
#include <string_view>

namespace gdedup::keys {
namespace {

bool all_digits(std::string_view s) {
  for (char c : s) {
    if (!is_digit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

bool is_default_port(std::string_view digits, int default_port) {
  while (!digits.empty() && digits.front() == '0') digits.remove_prefix(1);
  if (digits.size() > 5) return false;
  int value = 0;
  for (char c : digits) value = value * 10 + (c - '0');
  return value == default_port;
}

struct Split {
  bool clean = false;
  size_t host_end = 0;            // host is [0, host_end)
  bool has_port = false;          // then the port is after host_end + 1
};

Split split(std::string_view hp) {
  Split s;
  if (!hp.empty() && hp.front() == '[') {
    const size_t close = hp.find(']');
    if (close == std::string_view::npos) return s;
    s.host_end = close + 1;
    if (s.host_end == hp.size()) {
      s.clean = true;
    } else if (hp[s.host_end] == ':' && all_digits(hp.substr(s.host_end + 1))) {
      s.clean = true;
      s.has_port = true;
    }
    return s;
  }
  static constexpr ByteSet kStops(":[]");
  size_t i = 0;
  while (i < hp.size() && !kStops[hp[i]]) ++i;
  s.host_end = i;
  if (i == hp.size()) {
    s.clean = true;
  } else if (hp[i] == ':' && all_digits(hp.substr(i + 1))) {
    s.clean = true;
    s.has_port = true;
  }
  return s;
}

bool starts_with_www(std::string_view host) {
  return host.size() > 4 && iequals(host.substr(0, 4), "www.") &&
         host.find('.', 4) != std::string_view::npos;
}

}  // namespace

void rewrite_host_port(const HostPortRules& rules, size_t from, Out& out) {
  const std::string_view hp = out.view(from, out.size);
  const Split s = split(hp);
  if (!s.clean) return;
  std::string_view host = hp.substr(0, s.host_end);
  std::string_view port;
  if (s.has_port) port = hp.substr(s.host_end + 1);
  const bool bracketed = !host.empty() && host.front() == '[';

  if (rules.drop_host_dot && !bracketed) {
    while (!host.empty() && host.back() == '.') host.remove_suffix(1);
  }
  // Repeated so that "www.www.example.com" needs one run, not two; the
  // remaining host must keep a dot, so "www.com" stays.
  if (rules.drop_www) {
    while (starts_with_www(host)) host.remove_prefix(4);
  }
  bool keep_port = s.has_port;
  if (keep_port && port.empty() && rules.drop_empty_port) keep_port = false;
  if (keep_port && rules.default_port >= 0 && is_default_port(port, rules.default_port)) {
    keep_port = false;
  }

  // Only ever shrinks, and the parts keep their order: memmove in place.
  size_t at = from;
  std::memmove(out.data + at, host.data(), host.size());
  at += host.size();
  if (keep_port) {
    out.data[at++] = ':';
    std::memmove(out.data + at, port.data(), port.size());
    at += port.size();
  }
  out.size = at;
}

}  // namespace gdedup::keys
