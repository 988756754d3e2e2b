#include "pipeline/missing_keys.h"

namespace gdedup::pipeline {

uint8_t missing_answer(Mode mode, keys::MissingKey rule) {
  const uint8_t unique = 0;  // not seen before, not in the filter
  return rule == keys::MissingKey::kDrop && keeps_record(mode, unique) ? 1 : unique;
}

void spread_answers(uint8_t* answers, uint64_t n, const std::vector<uint64_t>& missing,
                    uint8_t absent) {
  uint64_t from = n - missing.size();
  size_t next = missing.size();
  for (uint64_t i = n; i-- > 0;) {
    if (next > 0 && missing[next - 1] == i) {
      --next;
      answers[i] = absent;
    } else {
      answers[i] = answers[--from];
    }
  }
}

std::string missing_key_advice(const PipelineOptions& options) {
  const OptionNames& names = options.option_names();
  return ". Give " + names.with(JobOption::kMissingKey, "keep") +
         " to write such records as unique, or " + names.with(JobOption::kMissingKey, "drop") +
         " to leave them out.";
}

Error null_key_error(const PipelineOptions& options, const columnar::RowGroupPlace& place,
                     uint64_t row) {
  return Error(options.inputs.at(place.input) + ": row " +
                   std::to_string(place.first_row + row + 1) + " (in row group " +
                   std::to_string(place.group + 1) + ") has no key " + options.keys.key_text() +
                   ": its value is null" + missing_key_advice(options),
               ErrorKind::invalid_argument);
}

}  // namespace gdedup::pipeline
