#include "pipeline/key_lines_output.h"

#include <charconv>
#include <cstring>

#include "gdedup/error.h"

namespace gdedup::pipeline {
namespace {

// A row group's key (8 bytes, little-endian) as the integer it was.
uint64_t integer_of(std::string_view key) {
  uint64_t value = 0;
  for (int b = 7; b >= 0; --b) value = (value << 8) | static_cast<unsigned char>(key[b]);
  return value;
}

}  // namespace

void check_parquet_output(const PipelineOptions& options) {
  const OptionNames& names = options.option_names();
  const std::string what = "Parquet input (" + options.inputs.front() + ")";
  const bool lines = options.output_format == OutputFormat::kLines;
  if (!lines && options.record_separator != '\n') {
    throw UsageError(what + " is written as Parquet, whose rows are not records ended by a "
                     "separator: leave out " + names.name(JobOption::kNullData) + ", or give " +
                     names.with(JobOption::kOutputFormat, "lines") + " to write the key "
                     "column's values as records, each ended by a NUL.");
  }
  // A missing key's answer is that of a new key (Driver): the rows the
  // mode writes for new keys.
  const bool writes_missing = options.mode == Mode::kDedup || options.mode == Mode::kQueryAbsent;
  if (lines && writes_missing && options.missing_key == keys::MissingKey::kKeep) {
    throw UsageError(what + ": " + names.with(JobOption::kMissingKey, "keep") + " would write "
                     "the rows whose key " + options.keys.key_text() + " is null, but " +
                     names.with(JobOption::kOutputFormat, "lines") + " writes key values, and "
                     "a null has none: give " + names.with(JobOption::kMissingKey, "drop") +
                     " to leave them out, or write the rows as Parquet.");
  }
}

KeyLinesOutput::KeyLinesOutput(const columnar::ParquetReader& reader,
                               const PipelineOptions& options, io::OutputWriter& writer)
    : reader_(reader),
      options_(options),
      writer_(writer),
      kind_(reader.key_kind()),
      unsigned_(reader.key_unsigned()) {}

void KeyLinesOutput::write(const columnar::RowGroup& rows, const columnar::RowGroupPlace& place,
                           const uint8_t* answers, Mode mode) {
  const char separator = options_.record_separator;
  const bool text = kind_ == columnar::ColumnKind::kText;
  for (size_t i = 0; i < rows.rows(); ++i) {
    if (!keeps_record(mode, answers[i])) continue;
    const std::string_view record = record_of(rows.key(i));
    // Hex and decimal hold neither newline nor NUL.
    if (text && std::memchr(record.data(), separator, record.size()) != nullptr) {
      refuse_separator(place, i);
    }
    writer_.write_record(record.data(), record.size());
  }
}

std::string_view KeyLinesOutput::record_of(std::string_view key) {
  switch (kind_) {
    case columnar::ColumnKind::kText:
      return key;
    case columnar::ColumnKind::kBinary: {
      static constexpr char kDigits[] = "0123456789abcdef";
      text_.resize(key.size() * 2);
      for (size_t i = 0; i < key.size(); ++i) {
        const auto byte = static_cast<unsigned char>(key[i]);
        text_[2 * i] = kDigits[byte >> 4];
        text_[2 * i + 1] = kDigits[byte & 15];
      }
      return text_;
    }
    case columnar::ColumnKind::kInteger: {
      char digits[24];
      const uint64_t value = integer_of(key);
      const std::to_chars_result end =
          unsigned_ ? std::to_chars(digits, digits + sizeof digits, value)
                    : std::to_chars(digits, digits + sizeof digits, static_cast<int64_t>(value));
      text_.assign(digits, end.ptr);
      return text_;
    }
  }
  return key;
}

void KeyLinesOutput::refuse_separator(const columnar::RowGroupPlace& place, size_t row) const {
  const OptionNames& names = options_.option_names();
  const std::string where = reader_.paths().at(place.input) + ": row " +
                            std::to_string(place.first_row + row + 1) + " (in row group " +
                            std::to_string(place.group + 1) + "): its key " +
                            options_.keys.key_text() + " holds ";
  const std::string lines = names.with(JobOption::kOutputFormat, "lines");
  if (options_.record_separator == '\0') {
    throw Error(where + "a NUL byte, which ends each value that " + lines + " writes with " +
                    names.name(JobOption::kNullData) + ", so it cannot be written as one: " +
                    "write the rows as Parquet instead (leave out " +
                    names.name(JobOption::kOutputFormat) + ").",
                ErrorKind::invalid_argument);
  }
  throw Error(where + "a newline, which ends each value that " + lines + " writes, so it "
                  "cannot be written as one line: give " + names.name(JobOption::kNullData) +
                  " to end each value with a NUL instead, or write the rows as Parquet.",
              ErrorKind::invalid_argument);
}

}  // namespace gdedup::pipeline
