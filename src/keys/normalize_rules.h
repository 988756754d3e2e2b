// The --normalize option: which rewrites turn a key into its canonical form.
// Rules change only the key that is hashed; the record written out is never
// changed. docs/KEYS.md lists every rule with an example.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gdedup::keys {

struct NormalizeRules {
  // Any key.
  bool trim = false;       // strip bytes 0x00-0x20 at both ends
  bool lowercase = false;  // ASCII-lowercase everything but percent-escape digits

  // URLs only ("scheme://..."): other keys are left as they are.
  bool lowercase_scheme = false;
  bool lowercase_host = false;
  bool drop_default_port = false;
  bool drop_fragment = false;
  bool drop_host_dot = false;
  bool uppercase_percent = false;
  bool decode_unreserved = false;
  bool add_root_slash = false;
  bool sort_query = false;
  bool drop_www = false;
  bool drop_trailing_slash = false;
  // Query parameters whose name matches one of these globs ('*' matches any
  // run of bytes, ASCII case ignored) are removed. Stored lowercase.
  std::vector<std::string> drop_params;

  bool empty() const;
  bool touches_urls() const;
  // The rules as a --normalize value with presets expanded, in a fixed order:
  // a canonical form that parses back to the same rules. Only the tests use
  // it so far; checkpoints record the --normalize text as the user gave it.
  std::string to_string() const;
};

// A comma-separated list of rule names and presets, e.g.
// "url,sort-query,drop-params:utm_*|ref". Throws gdedup::UsageError for an
// unknown name, listing the known ones.
NormalizeRules parse_normalize_rules(std::string_view text);

// The rule names and presets, comma-separated, for help texts.
std::string normalize_rule_names();

}  // namespace gdedup::keys
