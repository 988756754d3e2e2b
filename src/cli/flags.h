// The command's flags, each spelled here once, as ripgrep defines each flag
// once: the options are defined from these, and help texts and messages
// name them from here, so that a flag renamed is renamed everywhere.
// tests/flag_text_check.sh fails on a flag spelled twice in src/cli.
#pragma once

#include <string>

#include "gdedup/option_names.h"

namespace gdedup::cli {

struct Flag {
  const char* name;             // as help and messages name it: "-o", "--max-memory"
  const char* alias = nullptr;  // the other name it is taken by: "--output"

  // Both names, as CLI11 defines the option: "-o,--output".
  std::string names() const {
    if (alias == nullptr) return name;
    const bool short_first = name[1] != '-';
    return std::string(short_first ? name : alias) + "," + (short_first ? alias : name);
  }
};

// Help and messages put a flag in their text by its name:
// "raise " + flag::kFpr + " or lower " + flag::kCapacity.
inline std::string operator+(const std::string& text, const Flag& flag) {
  return text + flag.name;
}
inline std::string operator+(const char* text, const Flag& flag) {
  return text + std::string(flag.name);
}
inline std::string operator+(const Flag& flag, const std::string& text) {
  return flag.name + text;
}
inline std::string operator+(const Flag& flag, const char* text) {
  return flag.name + std::string(text);
}

namespace flag {

// Input
inline constexpr Flag kFilesFrom{"--files-from"};
inline constexpr Flag kNullList{"-0", "--null"};
inline constexpr Flag kRecursive{"--recursive", "-r"};
inline constexpr Flag kSkipMissing{"--skip-missing"};
inline constexpr Flag kInputFormat{"--input-format"};
inline constexpr Flag kMaxRecordLength{"--max-record-length"};
inline constexpr Flag kNullData{"-z", "--null-data"};
// Output
inline constexpr Flag kOutput{"-o", "--output"};
inline constexpr Flag kOutputParts{"--output-parts"};
inline constexpr Flag kOutputFormat{"--output-format"};
inline constexpr Flag kParquetCompression{"--parquet-compression"};
inline constexpr Flag kRowGroupRows{"--row-group-rows"};
inline constexpr Flag kStats{"--stats"};
inline constexpr Flag kQuiet{"-q", "--quiet"};
inline constexpr Flag kProgress{"--progress"};
inline constexpr Flag kNoProgress{"--no-progress"};
inline constexpr Flag kDuplicates{"--duplicates"};
inline constexpr Flag kAbsent{"--absent"};
inline constexpr Flag kJson{"--json"};
// Filter and sizing
inline constexpr Flag kFilter{"-f", "--filter"};
inline constexpr Flag kCapacity{"--capacity"};
inline constexpr Flag kFpr{"--fpr"};
inline constexpr Flag kMemory{"--memory"};
inline constexpr Flag kBlockBits{"--block-bits"};
inline constexpr Flag kAllowHighFpr{"--allow-high-fpr"};
inline constexpr Flag kNoGrow{"--no-grow"};
inline constexpr Flag kMaxMemory{"--max-memory"};
inline constexpr Flag kExact{"--exact"};
// Keys
inline constexpr Flag kKey{"--key"};
inline constexpr Flag kDelimiter{"--delimiter"};
inline constexpr Flag kNormalize{"--normalize"};
inline constexpr Flag kMissingKey{"--missing-key"};
inline constexpr Flag kStrictJson{"--strict-json"};
inline constexpr Flag kIgnoreKeyRules{"--ignore-key-rules"};
// Backend
inline constexpr Flag kBackend{"--backend"};
inline constexpr Flag kDevice{"--device"};
inline constexpr Flag kThreads{"--threads"};
inline constexpr Flag kFilterThreads{"--filter-threads"};
inline constexpr Flag kBatch{"--batch"};
inline constexpr Flag kMpi{"--mpi"};
inline constexpr Flag kNoMpi{"--no-mpi"};
inline constexpr Flag kPieceBytes{"--piece-bytes"};
inline constexpr Flag kCompressedPieceBytes{"--compressed-piece-bytes"};
// Checkpoints
inline constexpr Flag kCheckpoint{"--checkpoint"};
inline constexpr Flag kCheckpointEvery{"--checkpoint-every"};
inline constexpr Flag kResume{"--resume"};
inline constexpr Flag kReplayableStdin{"--replayable-stdin"};
// info and bench
inline constexpr Flag kAllInputs{"--all-inputs"};
inline constexpr Flag kKeys{"--keys"};
inline constexpr Flag kUrls{"--urls"};
inline constexpr Flag kListBackends{"--list-backends"};
// Every command's
inline constexpr Flag kHelp{"--help", "-h"};
inline constexpr Flag kVersion{"-V", "--version"};

}  // namespace flag

// The flag that names `option` in the library's messages (OptionNames).
const Flag& flag_of(JobOption option);

}  // namespace gdedup::cli
