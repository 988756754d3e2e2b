// What a job does with its records, and what its records are: terms that
// files record (a checkpoint's mode, a filter's input format) as well as the
// streaming driver (pipeline.h), so they sit below both.
#pragma once

#include <cstdint>
#include <string_view>

namespace gdedup {

enum class Mode {
  kDedup,        // write records whose key is new (test_and_set)
  kDuplicates,   // write records whose key was seen before (test_and_set)
  kBuild,        // add every key, write nothing
  kQueryPresent, // write records whose key is in the filter (read-only)
  kQueryAbsent,  // write records whose key is not in the filter (read-only)
};

// The mode's name as --stats writes it (docs/CLI.md): "dedup", "duplicates",
// "build", "query" or "query-absent".
inline const char* mode_name(Mode mode) {
  switch (mode) {
    case Mode::kDedup: return "dedup";
    case Mode::kDuplicates: return "duplicates";
    case Mode::kBuild: return "build";
    case Mode::kQueryPresent: return "query";
    case Mode::kQueryAbsent: return "query-absent";
  }
  return "unknown";
}

// Whether `mode` writes a record whose key got `answer` from the backend
// (test_and_set's was-present, or contains' present). kBuild writes none.
// Inline: the driver's per-record loops call it.
inline bool keeps_record(Mode mode, uint8_t answer) {
  switch (mode) {
    case Mode::kDedup: return answer == 0;
    case Mode::kDuplicates: return answer != 0;
    case Mode::kQueryPresent: return answer != 0;
    case Mode::kQueryAbsent: return answer == 0;
    case Mode::kBuild: return false;
  }
  return false;
}

enum class InputFormat {
  kText,  // records are lines; keys are fingerprinted with the filter's seed
  kU64,   // records are 8-byte little-endian fingerprints, used as they are
};

// What a job whose inputs are Parquet writes (docs/CLI.md, "Parquet").
// Records in, records out: a job of text or fingerprints takes no other.
enum class OutputFormat {
  kInput,    // as the input: Parquet for Parquet, records for records
  kParquet,  // the kept rows as Parquet (Parquet input only)
  kLines,    // the kept rows' key values, one record each (Parquet input only)
};

// The format's name as the command and Python spell it: "parquet",
// "lines" (kInput has none: it is the option left out).
inline const char* output_format_name(OutputFormat format) {
  return format == OutputFormat::kLines ? "lines" : "parquet";
}
// Sets `format` to the one `text` names; false where it names none.
inline bool output_format_named(std::string_view text, OutputFormat& format) {
  if (text != "parquet" && text != "lines") return false;
  format = text == "lines" ? OutputFormat::kLines : OutputFormat::kParquet;
  return true;
}

}  // namespace gdedup
