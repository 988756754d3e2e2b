#include "keys/w3lib_host.h"

#include <unistr.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "keys/bytes.h"
#include "keys/python_text.h"

namespace gdedup::keys {

bool nfkc_adds_delimiter(std::string_view authority) {
  constexpr std::string_view kDelimiters = "/?#@:\\";
  constexpr size_t npos = std::string_view::npos;
  thread_local std::string cleaned;
  cleaned.clear();
  for (const char c : authority) {
    if (c != '@' && c != ':' && c != '#' && c != '?') cleaned += c;
  }
  // The NFKC form, a character at a time, beside the text it comes from.
  size_t compared = 0;  // bytes of `cleaned`
  bool differs = false;
  bool delimiter = false;
  for_each_nfkc(cleaned, [&](char32_t c) {
    uint8_t utf8[6];
    const auto size = static_cast<size_t>(u8_uctomb(utf8, c, sizeof utf8));
    differs = differs || compared + size > cleaned.size() ||
              std::memcmp(cleaned.data() + compared, utf8, size) != 0;
    compared += size;
    delimiter = delimiter || (c < 0x80 && kDelimiters.find(static_cast<char>(c)) != npos);
    return !(differs && delimiter);
  });
  return (differs || compared != cleaned.size()) && delimiter;
}

void append_w3lib_host(std::string_view host, std::string& out) {
  // urlsplit's hostname: lowercased up to its first '%' (where an IPv6
  // zone would start).
  thread_local std::string lowered;
  const size_t percent = std::min(host.find('%'), host.size());
  lowered.clear();
  append_python_lower(host.substr(0, percent), lowered);
  lowered += host.substr(percent);
  // _idna: an ASCII host as it is; otherwise its NFKC form (less '@',
  // ':', '#' and '?', which a host cannot hold) through the codec, or the
  // host as it was where that raises. canonicalize_url then lowercases the
  // result.
  const size_t start = out.size();
  if (is_ascii(lowered)) {
    out += lowered;
  } else if (!append_python_nfkc_idna(lowered, out)) {
    append_python_lower(lowered, out);
    return;
  }
  for (size_t i = start; i < out.size(); ++i) out[i] = to_lower(out[i]);
}

}  // namespace gdedup::keys
