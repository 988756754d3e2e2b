// URL normalization on any bytes, for every rule set.
//
// Input: two bytes of rule flags and one byte choosing drop-params patterns,
// then the key. Bit 13 of the flags chooses the rule scrapy instead (w3lib's
// canonicalize_url, its IDNA hosts included), with keep-fragments from bit 14.
//
// Properties: normalizing is idempotent (but with scrapy, which is not, as
// w3lib is not); the result does not depend on what the scratch buffer held;
// with trim, the result has no bytes 0x00-0x20 at its ends; a key that is not
// a URL is changed by trim and lowercase only (but with scrapy, which reads
// every key as a URL); a result that is not in the scratch is a piece of the
// key. AddressSanitizer checks every byte the normalizer touches.
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_util.h"
#include "gdedup/key_options.h"
#include "keys/url_normalizer.h"

namespace {

using gdedup::fuzz::show;
using gdedup::keys::NormalizeRules;

NormalizeRules rules_from(uint16_t bits, uint8_t params) {
  NormalizeRules r;
  if ((bits >> 13) & 1) {  // scrapy takes no other rule
    r.scrapy = true;
    r.keep_fragments = (bits >> 14) & 1;
    return r;
  }
  bool* const flags[] = {&r.trim,           &r.lowercase,         &r.lowercase_scheme,
                         &r.lowercase_host, &r.drop_default_port, &r.drop_fragment,
                         &r.drop_host_dot,  &r.uppercase_percent, &r.decode_unreserved,
                         &r.add_root_slash, &r.sort_query,        &r.drop_www,
                         &r.drop_trailing_slash};
  for (size_t i = 0; i < sizeof flags / sizeof flags[0]; ++i) *flags[i] = (bits >> i) & 1;
  // Patterns as parse_normalize_rules stores them: lowercase, no '=', ',' or '|'.
  const char* const patterns[] = {"utm_*", "ref", "*", "a*b", "*id", "x", "**", "%41"};
  for (int i = 0; i < 8; ++i) {
    if ((params >> i) & 1) r.drop_params.emplace_back(patterns[i]);
  }
  return r;
}

// "scheme://" at the start: a letter, then letters, digits, '+', '-', '.'.
bool looks_like_url(std::string_view s) {
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  if (s.empty() || !alpha(s[0])) return false;
  size_t i = 1;
  while (i < s.size() && (alpha(s[i]) || (s[i] >= '0' && s[i] <= '9') || s[i] == '+' ||
                          s[i] == '-' || s[i] == '.')) {
    ++i;
  }
  return s.substr(i, 3) == "://";
}

bool is_space_or_control(char c) { return static_cast<unsigned char>(c) <= 0x20; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gdedup::fuzz::Input in(data, size);
  const uint16_t bits = in.u16();
  const uint8_t params = in.byte();
  const NormalizeRules rules = rules_from(bits, params);
  const std::string_view key = in.rest();
  const gdedup::keys::UrlNormalizer normalizer(rules);
  const std::string context = "rules " + rules.to_string() + ", key " + show(key);

  std::string scratch;
  const std::string_view view = normalizer.normalize(key, scratch);
  const std::string once(view);
  const bool in_scratch = !view.empty() && view.data() >= scratch.data() &&
                          view.data() + view.size() <= scratch.data() + scratch.size();
  if (!view.empty() && !in_scratch) {
    FUZZ_CHECK(view.data() >= key.data() && view.data() + view.size() <= key.data() + key.size(),
               "the result is neither in the scratch nor in the key; " + context);
  }

  std::string dirty(key.size() * 3 + 7, '%');
  FUZZ_CHECK(normalizer.normalize(key, dirty) == once,
             "a used scratch changes the result; " + context);

  if (rules.scrapy) return 0;
  std::string scratch2;
  const std::string twice(normalizer.normalize(once, scratch2));
  FUZZ_CHECK(twice == once, "not idempotent: " + show(once) + " -> " + show(twice) + "; " + context);

  if (rules.trim && !once.empty()) {
    FUZZ_CHECK(!is_space_or_control(once.front()) && !is_space_or_control(once.back()),
               "trim left a space or control byte at an end: " + show(once) + "; " + context);
  }
  if (!rules.trim && !rules.lowercase && !looks_like_url(key)) {
    FUZZ_CHECK(once == key, "a key that is not a URL changed: " + show(once) + "; " + context);
  }
  if (!rules.trim && rules.lowercase == false && rules.touches_urls() == false) {
    FUZZ_CHECK(once == key, "no rule, yet the key changed: " + show(once) + "; " + context);
  }
  return 0;
}
