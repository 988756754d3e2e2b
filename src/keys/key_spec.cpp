#include "gdedup/key_options.h"

#include <limits>
#include <string>
#include <vector>

#include "gdedup/error.h"

namespace gdedup::keys {
namespace {

const char kKeyForms[] =
    "use \"whole\" (or \"line\") for the whole record, \"field:N\" with N "
    "from 1 to 4294967295 for the N-th field, \"json:PATH\" for a value of a JSON record "
    "(PATH such as url, meta.source.url or links.0), \"cdxj:PATH\" for one of a CDXJ line's "
    "JSON, \"cdxj:surt\" or \"cdxj:timestamp\" for a CDXJ line's first two fields, or "
    "\"column:NAME\" for a column of Parquet input (NAME such as url or meta.url)";

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

// A dotted path with [N] for array indices; a backslash takes the byte
// after it literally (docs/KEYS.md, "Paths").
std::vector<std::string> parse_path(std::string_view key, std::string_view text) {
  if (text.empty()) bad_key(key, "the path is empty");
  std::vector<std::string> path;
  size_t i = 0;
  for (;;) {
    std::string step;
    if (text[i] == '[') {
      const size_t close = text.find(']', i);
      if (close == std::string_view::npos) bad_key(key, "a '[' has no ']'");
      step = std::string(text.substr(i + 1, close - i - 1));
      if (step.empty() || step.find_first_not_of("0123456789") != std::string::npos) {
        bad_key(key, "an index in [] must be digits");
      }
      i = close + 1;
    } else {
      for (; i < text.size() && text[i] != '.' && text[i] != '['; ++i) {
        if (text[i] == ']') bad_key(key, "a ']' has no '[' (escape a literal one as \\])");
        if (text[i] == '\\' && ++i == text.size()) {
          bad_key(key, "the path ends in an escaping backslash");
        }
        step += text[i];
      }
      if (step.empty()) bad_key(key, "the path has an empty name (escape a literal '.' as \\.)");
    }
    path.push_back(std::move(step));
    if (i == text.size()) return path;
    if (text[i] == '.') {
      if (++i == text.size()) bad_key(key, "the path ends in '.'");
    } else if (text[i] != '[') {
      bad_key(key, "a ']' must be followed by '.', '[' or the end of the path");
    }
  }
}

// Escapes the bytes that parse_path reads as syntax.
std::string path_text(const std::vector<std::string>& path, bool cdxj) {
  std::string text;
  for (size_t i = 0; i < path.size(); ++i) {
    if (i > 0) text += '.';
    // A CDXJ path that reads as one of the line's own fields.
    if (cdxj && path.size() == 1 && (path[0] == "surt" || path[0] == "timestamp")) text += '\\';
    for (char c : path[i]) {
      if (c == '.' || c == '[' || c == ']' || c == '\\') text += '\\';
      text += c;
    }
  }
  return text;
}

}  // namespace

KeySpec parse_key_spec(std::string_view text) {
  if (text == "whole" || text == "line") return KeySpec::whole();
  constexpr std::string_view kJson = "json:";
  constexpr std::string_view kCdxj = "cdxj:";
  constexpr std::string_view kColumn = "column:";
  if (text.substr(0, kColumn.size()) == kColumn) {
    return {KeySpec::Kind::kColumn, 0, parse_path(text, text.substr(kColumn.size()))};
  }
  if (text.substr(0, kJson.size()) == kJson) {
    return {KeySpec::Kind::kJson, 0, parse_path(text, text.substr(kJson.size()))};
  }
  if (text.substr(0, kCdxj.size()) == kCdxj) {
    const std::string_view rest = text.substr(kCdxj.size());
    if (rest == "surt") return {KeySpec::Kind::kCdxjSurt, 0, {}};
    if (rest == "timestamp") return {KeySpec::Kind::kCdxjTimestamp, 0, {}};
    return {KeySpec::Kind::kCdxj, 0, parse_path(text, rest)};
  }
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
  switch (kind) {
    case Kind::kWhole: return "whole";
    case Kind::kField: return "field:" + std::to_string(field);
    case Kind::kJson: return "json:" + path_text(path, false);
    case Kind::kCdxj: return "cdxj:" + path_text(path, true);
    case Kind::kCdxjSurt: return "cdxj:surt";
    case Kind::kCdxjTimestamp: return "cdxj:timestamp";
    case Kind::kColumn: return "column:" + path_text(path, false);
  }
  return "whole";
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

MissingKey parse_missing_key(std::string_view text) {
  if (text == "error") return MissingKey::kError;
  if (text == "keep") return MissingKey::kKeep;
  if (text == "drop") return MissingKey::kDrop;
  throw UsageError("the missing-key policy \"" + std::string(text) + "\" is not valid: use "
                   "error (the job fails), keep (such records are written as unique) or drop "
                   "(they are left out).");
}

const char* missing_key_text(MissingKey policy) {
  switch (policy) {
    case MissingKey::kError: return "error";
    case MissingKey::kKeep: return "keep";
    case MissingKey::kDrop: return "drop";
  }
  return "error";
}

}  // namespace gdedup::keys
