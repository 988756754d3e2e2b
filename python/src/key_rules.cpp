#include "key_rules.h"

#include "gdedup/error.h"
#include "py_events.h"

namespace gdedup::python {
namespace {

std::string quoted(const std::string& text) { return "\"" + text + "\""; }

// The library's rule for a delimiter given with `key` (the key's text in
// effect), told as Python names the two; `events` keeps them as given. It
// speaks to no Python object, so it runs with the GIL released too.
void check_delimiter(const std::string& key, const OptionalText& delimiter, PyEvents& events) {
  if (!delimiter) return;
  events.set_given(JobOption::kKey, quoted(key));
  events.set_given(JobOption::kDelimiter, quoted(*delimiter));
  check_given_delimiter(keys::parse_key_spec(key), events);
}

}  // namespace

KeyRules key_rules(const OptionalText& key, const OptionalText& delimiter,
                   const OptionalText& normalize, PyEvents& events) {
  const std::string key_text = key.value_or("whole");
  check_delimiter(key_text, delimiter, events);
  KeyRules rules;
  rules.keys = KeyOptions::parse(key_text, delimiter.value_or("tab"), normalize.value_or(""));
  return rules;
}

KeyRules key_rules(const OptionalText& key, const OptionalText& delimiter,
                   const OptionalText& normalize) {
  PyEvents names;
  return key_rules(key, delimiter, normalize, names);
}

void check_strict_json(const KeyRules& rules, bool strict_json) {
  if (!strict_json) return;
  // A PyEvents lives with the GIL held; the loads call this without it.
  nb::gil_scoped_acquire gil;
  const PyEvents names;
  refuse_without_structured_key(JobOption::kStrictJson, names.given(JobOption::kStrictJson),
                                rules.format, rules.keys, names);
}

KeyRules loaded_key_rules(const std::string& path, const char* noun,
                          const std::optional<KeyRules>& recorded,
                          const OptionalText& key, const OptionalText& delimiter,
                          const OptionalText& normalize) {
  if (!recorded) return key_rules(key, delimiter, normalize);
  if (!key && !delimiter && !normalize) return *recorded;
  // Arguments left out are the file's: only those given are checked.
  const KeyOptions& file = recorded->keys;
  PyEvents names;
  check_delimiter(key.value_or(file.key_text()), delimiter, names);
  KeyRules asked = *recorded;
  asked.format = InputFormat::kText;
  asked.keys = KeyOptions::parse(key.value_or(file.key_text()),
                                 delimiter.value_or(file.delimiter_text()),
                                 normalize ? *normalize : file.normalize_text());
  if (asked == *recorded) return *recorded;
  throw UsageError(std::string("the ") + noun + " " + path + " was built with key rules \"" +
                   recorded->to_string() + "\" but key=, delimiter= and normalize= ask for \"" +
                   asked.to_string() + "\", so its keys would not match; leave them out to use "
                   "the file's rules, or give the ones it was built with");
}

}  // namespace gdedup::python
