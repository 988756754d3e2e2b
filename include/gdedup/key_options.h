// Which part of a record is its key, and how the key is normalized before it
// is hashed (docs/KEYS.md). Options are parsed once into typed values; every
// spelling of one option (tab and \t, url and its rules spelled out) gives the
// same value and the same canonical text, which is what a checkpoint records.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gdedup/mode.h"
#include "gdedup/option_names.h"

namespace gdedup::keys {

// The whole record, one delimited field, or a field of a structured record:
// a JSON Lines record's value at a path, or a CDXJ line's SURT, timestamp or
// value at a path in its JSON (docs/KEYS.md, "Structured records"), or a
// column of Parquet input, at a path into its struct columns.
struct KeySpec {
  enum class Kind { kWhole, kField, kJson, kCdxj, kCdxjSurt, kCdxjTimestamp, kColumn };
  Kind kind = Kind::kWhole;
  // 1-based, as the user writes it; meaningful only for kField.
  uint32_t field = 0;
  // kJson and kCdxj: the member names and array indices from the root, as
  // unescaped names; a name of digits is also an index into an array.
  // kColumn: the column's name, then its fields' in struct columns.
  std::vector<std::string> path;

  static KeySpec whole() { return {Kind::kWhole, 0, {}}; }
  static KeySpec nth_field(uint32_t n) { return {Kind::kField, n, {}}; }

  // The key may be missing from a record (--missing-key): JSON and CDXJ,
  // and a column's null.
  bool structured() const { return kind != Kind::kWhole && kind != Kind::kField; }

  bool operator==(const KeySpec& o) const {
    return kind == o.kind && field == o.field && path == o.path;
  }
  bool operator!=(const KeySpec& o) const { return !(*this == o); }
  // "whole", "field:N", "json:PATH", "cdxj:PATH", "cdxj:surt",
  // "cdxj:timestamp" or "column:PATH", PATH in its canonical escaping:
  // parses back to this spec.
  std::string to_string() const;
};

// "whole" or "line" for the whole record, "field:N" (N >= 1) for the N-th
// field, "json:PATH" and "cdxj:PATH" for a value in a JSON record or a CDXJ
// line's JSON, "cdxj:surt" and "cdxj:timestamp" for a CDXJ line's first two
// fields, "column:PATH" for a column of Parquet input. Throws
// gdedup::UsageError naming the value and the accepted forms.
KeySpec parse_key_spec(std::string_view text);

// One byte: given literally (",", "|"), by name (tab, comma, space, pipe,
// semicolon, colon) or as an escape (\t, \\, \xHH). Throws gdedup::UsageError
// for anything that is not exactly one byte after unescaping.
char parse_delimiter(std::string_view text);

// The delimiter's canonical text: its name where it has one, the byte itself
// when printable, \\ for a backslash, \xHH otherwise. Parses back to `c`.
std::string delimiter_text(char c);

// Which rewrites turn a key into its canonical form. Rules change only the
// key that is hashed; the record written out is never changed. docs/KEYS.md
// lists every rule with an example.
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
  // w3lib.url.canonicalize_url with its defaults, as Scrapy uses it, applied
  // to every key (src/keys/scrapy_url.h); keep_fragments is its option of that
  // name. Neither combines with other rules.
  bool scrapy = false;
  bool keep_fragments = false;
  // Query parameters whose name matches one of these globs ('*' matches any
  // run of bytes, ASCII case ignored) are removed. Stored lowercase, sorted,
  // each once: a set, so that equal rules compare equal.
  std::vector<std::string> drop_params;

  bool empty() const;
  bool touches_urls() const;
  bool operator==(const NormalizeRules& o) const;
  bool operator!=(const NormalizeRules& o) const { return !(*this == o); }
  // The rules with presets expanded, in a fixed order ("none" when there are
  // none): the canonical text, which parses back to the same rules.
  std::string to_string() const;
};

// A comma-separated list of rule names and presets, e.g.
// "url,sort-query,drop-params:utm_*|ref". Throws gdedup::UsageError for an
// unknown name, listing the known ones.
NormalizeRules parse_normalize_rules(std::string_view text);

// The rule names and presets, comma-separated, for help texts.
std::string normalize_rule_names();

// What a job does with a record that lacks its JSON or CDXJ key, or is not
// one JSON value as far as it is read (--missing-key; docs/KEYS.md).
enum class MissingKey {
  kError,  // the job fails, naming the record's number and byte offset
  kKeep,   // the record stands for a key seen nowhere else: never a duplicate
  kDrop,   // the record is left out, whatever the mode
};

// "error", "keep" or "drop"; throws gdedup::UsageError for anything else.
MissingKey parse_missing_key(std::string_view text);
const char* missing_key_text(MissingKey policy);

}  // namespace gdedup::keys

namespace gdedup {

// How the key is taken from a text record: the three key options, typed.
struct KeyOptions {
  keys::KeySpec key = keys::KeySpec::whole();
  char delimiter = '\t';  // separates fields; matters only for field keys
  keys::NormalizeRules normalize;

  // The options from their texts as a user writes them (docs/KEYS.md); ""
  // for `normalize` means no rules. Throws UsageError naming a bad value.
  static KeyOptions parse(std::string_view key, std::string_view delimiter = "tab",
                          std::string_view normalize = "");

  // Canonical texts: parse(key_text(), delimiter_text(), normalize_text())
  // gives these options back, and equal options give equal texts. No rules
  // are "", as a checkpoint has always recorded them.
  std::string key_text() const { return key.to_string(); }
  std::string delimiter_text() const { return keys::delimiter_text(delimiter); }
  std::string normalize_text() const { return normalize.empty() ? "" : normalize.to_string(); }

  bool operator==(const KeyOptions& o) const {
    return key == o.key && delimiter == o.delimiter && normalize == o.normalize;
  }
  bool operator!=(const KeyOptions& o) const { return !(*this == o); }
};

// Throws UsageError when `option`, which only a JSON or CDXJ key reads
// (JobOption::kMissingKey, kStrictJson), is given with a key that every
// record has: `keys` of text records, or u64 fingerprints (`format`). It
// would do nothing, so it is a mistake. `given` is the option as the user
// gave it; `names` names the others in the front end's words.
void refuse_without_structured_key(JobOption option, const std::string& given,
                                   InputFormat format, const KeyOptions& keys,
                                   const OptionNames& names);

// A delimiter was given with `key`: refused (UsageError) unless `key` is a
// field key (field:N), the one key whose fields it separates. With any
// other key it would select nothing, and yet be recorded in the key rules
// (KeyOptions::operator== compares it for every key), so that the file of
// a job given it would hold other rules than the same key's without it.
// One rule for every front end and every place a delimiter is taken (a
// job, a new filter or set, a loaded one), named in `names`' words: its
// given() of the delimiter and of the key.
void check_given_delimiter(const keys::KeySpec& key, const OptionNames& names);

}  // namespace gdedup
