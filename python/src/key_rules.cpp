#include "key_rules.h"

#include "gdedup/error.h"
#include "py_events.h"

namespace gdedup::python {

KeyRules key_rules(const OptionalText& key, const OptionalText& delimiter,
                   const OptionalText& normalize) {
  KeyRules rules;
  rules.keys = KeyOptions::parse(key.value_or("whole"), delimiter.value_or("tab"),
                                 normalize.value_or(""));
  // As the command refuses --delimiter with --key whole: a delimiter that
  // selects nothing is a mistake, and it would be recorded in the rules.
  if (delimiter && rules.keys.key == keys::KeySpec::whole()) {
    throw UsageError("delimiter=\"" + *delimiter + "\" applies to a field key only; give "
                     "key=\"field:N\" with it, or leave it out");
  }
  return rules;
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
  if (!recorded) {
    KeyRules rules = key_rules(key, delimiter, normalize);
    return rules;
  }
  if (!key && !delimiter && !normalize) return *recorded;
  // Arguments left out are the file's: only those given are checked.
  const KeyOptions& file = recorded->keys;
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
