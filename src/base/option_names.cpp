#include "gdedup/option_names.h"

namespace gdedup {

std::string OptionNames::name(JobOption option) const {
  switch (option) {
    case JobOption::kFilesFrom: return "files_from";
    case JobOption::kNullList: return "null_list";
    case JobOption::kRecursive: return "recursive";
    case JobOption::kSkipMissing: return "skip_missing";
    case JobOption::kOutput: return "output";
    case JobOption::kOutputParts: return "output_parts";
    case JobOption::kOutputFormat: return "output_format";
    case JobOption::kFilter: return "filter";
    case JobOption::kStats: return "stats";
    case JobOption::kCapacity: return "capacity";
    case JobOption::kFpr: return "fpr";
    case JobOption::kMemory: return "memory";
    case JobOption::kBlockBits: return "block_bits";
    case JobOption::kAllowHighFpr: return "allow_high_fpr";
    case JobOption::kNoGrow: return "no_grow";
    case JobOption::kMaxMemory: return "max_memory";
    case JobOption::kKey: return "key";
    case JobOption::kDelimiter: return "delimiter";
    case JobOption::kNormalize: return "normalize";
    case JobOption::kIgnoreKeyRules: return "ignore_key_rules";
    case JobOption::kInputFormat: return "input_format";
    case JobOption::kNullData: return "null_data";
    case JobOption::kBackend: return "backend";
    case JobOption::kThreads: return "threads";
    case JobOption::kFilterThreads: return "filter_threads";
    case JobOption::kDevice: return "device";
    case JobOption::kCheckpoint: return "checkpoint";
    case JobOption::kResume: return "resume";
    case JobOption::kReplayableStdin: return "replayable_stdin";
    case JobOption::kMpi: return "mpi";
    case JobOption::kExact: return "exact";
    case JobOption::kMissingKey: return "missing_key";
    case JobOption::kStrictJson: return "strict_json";
    case JobOption::kBatch: return "batch_records";
    case JobOption::kMaxRecordLength: return "max_record_bytes";
    case JobOption::kPieceBytes: return "piece_bytes";
    case JobOption::kCompressedPieceBytes: return "compressed_piece_bytes";
    case JobOption::kCheckpointEverySeconds: return "checkpoint_every_seconds";
    case JobOption::kCheckpointEveryRecords: return "checkpoint_every_records";
    case JobOption::kParquetCompression: return "parquet_compression";
    case JobOption::kRowGroupRows: return "row_group_rows";
  }
  return "?";
}

std::string OptionNames::with(JobOption option, const std::string& value) const {
  const std::string named = name(option);
  return named + (!named.empty() && named.back() == '=' ? "" : " ") + value;
}

const OptionNames& library_option_names() {
  static const OptionNames names;
  return names;
}

}  // namespace gdedup
