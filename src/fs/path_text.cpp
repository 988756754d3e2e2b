#include "gdedup/frontend/path_text.h"

#include <cstdint>

namespace gdedup::fs {
namespace {

// The length of the valid UTF-8 sequence at text[at] (2 to 4 bytes), or 0
// when the bytes there are not one (overlong forms and surrogates included).
size_t utf8_length(const std::string& text, size_t at, uint32_t& code) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(at);
  size_t n = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    n = 2;
    code = lead & 0x1F;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    n = 3;
    code = lead & 0x0F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    n = 4;
    code = lead & 0x07;
  } else {
    return 0;
  }
  if (at + n > text.size()) return 0;
  for (size_t i = 1; i < n; ++i) {
    if ((byte(at + i) & 0xC0) != 0x80) return 0;
    code = (code << 6) | (byte(at + i) & 0x3F);
  }
  const bool overlong = (n == 3 && code < 0x800) || (n == 4 && code < 0x10000);
  const bool surrogate = code >= 0xD800 && code <= 0xDFFF;
  return overlong || surrogate || code > 0x10FFFF ? 0 : n;
}

// C1 controls, and the characters that reorder the text around them.
bool invisible(uint32_t code) {
  return code <= 0x9F || (code >= 0x200E && code <= 0x200F) ||
         (code >= 0x202A && code <= 0x202E) || (code >= 0x2066 && code <= 0x2069);
}

void append_hex(std::string& out, unsigned char byte) {
  static const char kDigits[] = "0123456789ABCDEF";
  out += "\\x";
  out += kDigits[byte >> 4];
  out += kDigits[byte & 0xF];
}

}  // namespace

std::string printable(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (size_t at = 0; at < text.size();) {
    const auto c = static_cast<unsigned char>(text[at]);
    if (c >= 0x20 && c < 0x7F) {
      out += static_cast<char>(c);
      ++at;
      continue;
    }
    if (c == '\t' || c == '\n' || c == '\r') {
      out += c == '\t' ? "\\t" : c == '\n' ? "\\n" : "\\r";
      ++at;
      continue;
    }
    uint32_t code = 0;
    const size_t n = c >= 0x80 ? utf8_length(text, at, code) : 0;
    if (n > 0 && !invisible(code)) {
      out.append(text, at, n);
      at += n;
      continue;
    }
    for (const size_t end = at + (n > 0 ? n : 1); at < end; ++at) {
      append_hex(out, static_cast<unsigned char>(text[at]));
    }
  }
  return out;
}

}  // namespace gdedup::fs
