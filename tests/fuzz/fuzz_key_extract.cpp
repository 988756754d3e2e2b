// Key selection (field:N with any delimiter byte) and the option parsers.
//
// Input: a mode byte, then
//   mode even: delimiter byte, field byte, rules byte, then the record.
//     The field byte picks "whole" (0), field 1..200, or one of a few huge
//     field numbers; the rules byte picks a --normalize value.
//   mode odd: the text given to parse_key_spec, parse_delimiter and
//     parse_normalize_rules.
//
// Properties: the field is a view into the record, equal to the field a
// naive split gives (a missing field is empty); without rules the key is
// that view, with rules it is the normalizer's output for it. The parsers
// return or throw gdedup::UsageError, and what they accept reads back.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_util.h"
#include "gdedup/error.h"
#include "gdedup/key_extractor.h"
#include "gdedup/key_options.h"
#include "keys/url_normalizer.h"

namespace {

using gdedup::fuzz::show;
using namespace gdedup::keys;

const char* const kRules[] = {"none",   "url",       "url-aggressive", "trim", "lowercase",
                              "trim,lowercase",    "drop-fragment,sort-query",
                              "drop-params:a*|*b", "url,drop-www,drop-trailing-slash"};

// The definition: every delimiter separates two fields.
std::vector<std::string_view> naive_split(std::string_view s, char d) {
  std::vector<std::string_view> fields;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == d) {
      fields.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  fields.push_back(s.substr(start));
  return fields;
}

void check_field(std::string_view record, char delimiter, uint32_t n, const char* rules_text) {
  const KeySpec spec = n == 0 ? KeySpec::whole() : KeySpec::nth_field(n);
  const NormalizeRules rules = parse_normalize_rules(rules_text);
  const KeyExtractor extractor(gdedup::KeyOptions{spec, delimiter, rules});

  const std::string_view field = extractor.field(record);
  std::string_view expected = record;
  if (n != 0) {
    const auto fields = naive_split(record, delimiter);
    expected = n <= fields.size() ? fields[n - 1] : std::string_view();
  }
  const std::string context = "record " + show(record) + ", delimiter " +
                              std::to_string(static_cast<unsigned char>(delimiter)) +
                              ", field " + std::to_string(n);
  FUZZ_CHECK(field == expected, "field " + show(field) + " expected " + show(expected) + "; " + context);
  if (!field.empty()) {
    FUZZ_CHECK(field.data() >= record.data() &&
                   field.data() + field.size() <= record.data() + record.size(),
               "the field is not a view into the record; " + context);
    FUZZ_CHECK(field.data() == expected.data(), "the field is taken from the wrong place; " + context);
  }

  std::string scratch;
  const std::string key(extractor.key(record, scratch));
  if (rules.empty()) {
    FUZZ_CHECK(key == field, "without rules the key is not the field; " + context);
  } else {
    std::string scratch2;
    const std::string_view normalized = UrlNormalizer(rules).normalize(field, scratch2);
    FUZZ_CHECK(key == normalized, "key " + show(key) + " but the normalized field is " +
                                      show(normalized) + "; " + context);
  }
  // A reused scratch gives the same key.
  FUZZ_CHECK(extractor.key(record, scratch) == key, "a reused scratch changes the key; " + context);
}

void check_parsers(std::string_view text) {
  try {
    const KeySpec spec = parse_key_spec(text);
    if (spec.kind == KeySpec::Kind::kField) {
      FUZZ_CHECK(spec.field >= 1, "field 0 accepted from " + show(text));
      const KeySpec again = parse_key_spec("field:" + std::to_string(spec.field));
      FUZZ_CHECK(again.kind == KeySpec::Kind::kField && again.field == spec.field,
                 "field number does not read back: " + show(text));
    } else if (spec.kind == KeySpec::Kind::kWhole) {
      FUZZ_CHECK(text == "whole" || text == "line", "whole key from " + show(text));
    } else {
      // JSON and CDXJ keys: fuzz_structured_key.cpp.
      FUZZ_CHECK(parse_key_spec(spec.to_string()) == spec, "spec does not read back: " + show(text));
    }
  } catch (const gdedup::UsageError& e) {
    // The message quotes the text, so a NUL in it (impossible on a command
    // line) ends the C string early; the sentence starts the same anyway.
    FUZZ_CHECK(std::string(e.what()).rfind("the key \"", 0) == 0, e.what());
  }
  try {
    const char d = parse_delimiter(text);
    if (text.size() == 1) FUZZ_CHECK(d == text[0], "one-byte delimiter changed: " + show(text));
    FUZZ_CHECK(parse_delimiter(delimiter_text(d)) == d,
               "delimiter does not read back: " + show(text) + " -> " + show(delimiter_text(d)));
  } catch (const gdedup::UsageError&) {
  }
  try {
    const NormalizeRules rules = parse_normalize_rules(text);
    const std::string canonical = rules.to_string();
    const NormalizeRules again = parse_normalize_rules(canonical.empty() ? "none" : canonical);
    FUZZ_CHECK(again == rules && again.to_string() == canonical,
               "rules do not read back: " + show(text) + " -> " + show(canonical) + " -> " +
                   show(again.to_string()));
  } catch (const gdedup::UsageError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gdedup::fuzz::Input in(data, size);
  const uint8_t mode = in.byte();
  if (mode % 2 == 1) {
    check_parsers(in.rest());
    return 0;
  }
  const char delimiter = static_cast<char>(in.byte());
  const uint8_t field_byte = in.byte();
  const uint8_t rules_byte = in.byte();
  uint32_t n = field_byte;
  if (field_byte > 200) {
    const uint32_t huge[] = {UINT32_MAX, UINT32_MAX - 1, uint32_t{1} << 31, 65536, 1000};
    n = huge[field_byte % 5];
  }
  const char* rules = kRules[rules_byte % (sizeof kRules / sizeof kRules[0])];
  check_field(in.rest(), delimiter, n, rules);
  return 0;
}
