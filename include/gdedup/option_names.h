// How a front end names a job's options in the library's messages: the
// command says "--output-parts", Python "output_parts=". Every layer that
// must name an option in a message asks an OptionNames for it, so that the
// library's own code holds no front end's words (gdedup/job.h, JobEvents).
#pragma once

#include <string>

namespace gdedup {

enum class JobOption {
  kFilesFrom, kNullList, kRecursive, kSkipMissing, kOutput, kOutputParts, kOutputFormat,
  kFilter, kStats,
  kCapacity, kFpr, kMemory, kBlockBits, kAllowHighFpr, kNoGrow, kMaxMemory,
  kKey, kDelimiter, kNormalize, kIgnoreKeyRules, kInputFormat, kNullData,
  kBackend, kThreads, kFilterThreads, kDevice, kCheckpoint, kResume, kReplayableStdin,
  kMpi, kExact, kMissingKey, kStrictJson, kBatch, kMaxRecordLength, kPieceBytes,
  kCompressedPieceBytes, kCheckpointEverySeconds, kCheckpointEveryRecords,
  kParquetCompression, kRowGroupRows,
};
// How many JobOptions there are (the last one above, plus one): a front end
// asks of each whether it was given (JobSpec::given).
inline constexpr int kJobOptionCount = static_cast<int>(JobOption::kRowGroupRows) + 1;

class OptionNames {
 public:
  virtual ~OptionNames() = default;
  // The option as messages name it: "--max-memory". The default is the
  // library's own name: "max_memory".
  virtual std::string name(JobOption option) const;
  // The option with the value the user gave: "--max-memory 2G". The default
  // names the option alone.
  virtual std::string given(JobOption option) const { return name(option); }
  // The option with a value a message suggests: "--memory 2 GiB", or
  // "memory=2 GiB" where the name ends with '='.
  std::string with(JobOption option, const std::string& value) const;
};

// The library's own names, for a caller that gives none.
const OptionNames& library_option_names();

}  // namespace gdedup
