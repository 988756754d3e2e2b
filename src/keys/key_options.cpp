#include "gdedup/key_options.h"

#include "gdedup/error.h"

namespace gdedup {

KeyOptions KeyOptions::parse(std::string_view key, std::string_view delimiter,
                             std::string_view normalize) {
  KeyOptions options;
  options.key = keys::parse_key_spec(key);
  options.delimiter = keys::parse_delimiter(delimiter);
  if (!normalize.empty()) options.normalize = keys::parse_normalize_rules(normalize);
  return options;
}

void refuse_without_structured_key(JobOption option, const std::string& given,
                                   InputFormat format, const KeyOptions& keys,
                                   const OptionNames& names) {
  const bool u64 = format == InputFormat::kU64;
  // A column's value may be null, but it is never JSON.
  const bool json_only = option == JobOption::kStrictJson;
  const bool column = keys.key.kind == keys::KeySpec::Kind::kColumn;
  if (!u64 && keys.key.structured() && !(json_only && column)) return;
  throw UsageError(given + " has no effect with " +
                   (u64 ? names.with(JobOption::kInputFormat, "u64")
                        : names.with(JobOption::kKey, keys.key_text())) +
                   (column ? ", whose values are not JSON"
                           : ", which every record has") +
                   "; it is for json: and cdxj: keys" + (json_only ? "" : " and column: keys") +
                   "; drop " + names.name(option));
}

void check_given_delimiter(const keys::KeySpec& key, const OptionNames& names) {
  if (key.kind == keys::KeySpec::Kind::kField) return;
  throw UsageError(names.given(JobOption::kDelimiter) + " has no effect with " +
                   names.given(JobOption::kKey) + ": it separates the fields of a field:N key; "
                   "drop " + names.name(JobOption::kDelimiter) + ", or give " +
                   names.with(JobOption::kKey, "field:N"));
}

}  // namespace gdedup
