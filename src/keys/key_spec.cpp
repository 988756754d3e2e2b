#include "gdedup/key_options.h"

#include <limits>
#include <string>

#include "gdedup/error.h"

namespace gdedup::keys {
namespace {

const char kKeyForms[] =
    "use \"whole\" (or \"line\") for the whole record, or \"field:N\" with N "
    "from 1 to 4294967295 for the N-th field";

const char kDelimiterForms[] =
    "give one byte literally (for example \",\"), by name (tab, comma, space, "
    "pipe, semicolon, colon) or as an escape (\\t, \\\\, \\xHH)";

[[noreturn]] void bad_key(std::string_view text, const char* why) {
  throw UsageError("the key \"" + std::string(text) + "\" is not valid: " +
                   why + "; " + kKeyForms + ".");
}

[[noreturn]] void bad_delimiter(std::string_view text, const std::string& why) {
  throw UsageError("the delimiter \"" + std::string(text) + "\" is not valid: " +
                   why + "; " + kDelimiterForms + ".");
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

KeySpec parse_key_spec(std::string_view text) {
  if (text == "whole" || text == "line") return KeySpec::whole();
  constexpr std::string_view kPrefix = "field:";
  if (text.substr(0, kPrefix.size()) != kPrefix) bad_key(text, "it is not a known form");
  const std::string_view digits = text.substr(kPrefix.size());
  if (digits.empty()) bad_key(text, "the field number is missing");
  uint64_t n = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') bad_key(text, "the field number is not a whole number");
    n = n * 10 + static_cast<uint64_t>(c - '0');
    if (n > std::numeric_limits<uint32_t>::max()) bad_key(text, "the field number is too large");
  }
  if (n == 0) bad_key(text, "field numbers start at 1");
  return KeySpec::nth_field(static_cast<uint32_t>(n));
}

std::string KeySpec::to_string() const {
  return kind == Kind::kWhole ? "whole" : "field:" + std::to_string(field);
}

namespace {

struct DelimiterName {
  const char* name;
  char byte;
};

constexpr DelimiterName kDelimiterNames[] = {
    {"tab", '\t'}, {"comma", ','},     {"space", ' '},
    {"pipe", '|'}, {"semicolon", ';'}, {"colon", ':'},
};

}  // namespace

// Any byte: one that is the record separator as well is refused where the
// separator is known (the pipeline), since it never occurs inside a record.
char parse_delimiter(std::string_view text) {
  for (const DelimiterName& d : kDelimiterNames) {
    if (text == d.name) return d.byte;
  }
  if (text.empty()) bad_delimiter(text, "it is empty");
  if (text.size() == 1) return text[0];
  if (text[0] == '\\') {
    if (text == "\\t") return '\t';
    if (text == "\\\\") return '\\';
    if (text.size() == 4 && text[1] == 'x') {
      const int hi = hex_value(text[2]);
      const int lo = hex_value(text[3]);
      if (hi >= 0 && lo >= 0) return static_cast<char>(hi * 16 + lo);
    }
    bad_delimiter(text, "it is not a known escape");
  }
  bad_delimiter(text, "it is " + std::to_string(text.size()) +
                          " bytes long and a delimiter is a single byte");
}

std::string delimiter_text(char c) {
  for (const DelimiterName& d : kDelimiterNames) {
    if (c == d.byte) return d.name;
  }
  if (c == '\\') return "\\\\";
  const auto byte = static_cast<unsigned char>(c);
  if (byte > 0x20 && byte < 0x7f) return std::string(1, c);
  const char* const hex = "0123456789abcdef";
  return std::string("\\x") + hex[byte >> 4] + hex[byte & 15];
}

}  // namespace gdedup::keys
