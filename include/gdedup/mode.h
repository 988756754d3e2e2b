// What a job does with its records, and what its records are: terms that
// files record (a checkpoint's mode, a filter's input format) as well as the
// streaming driver (pipeline.h), so they sit below both.
#pragma once

#include <cstdint>

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

}  // namespace gdedup
