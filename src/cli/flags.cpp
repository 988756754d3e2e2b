#include "cli/flags.h"

namespace gdedup::cli {

const Flag& flag_of(JobOption option) {
  switch (option) {
    case JobOption::kFilesFrom: return flag::kFilesFrom;
    case JobOption::kNullList: return flag::kNullList;
    case JobOption::kRecursive: return flag::kRecursive;
    case JobOption::kSkipMissing: return flag::kSkipMissing;
    case JobOption::kOutput: return flag::kOutput;
    case JobOption::kOutputParts: return flag::kOutputParts;
    case JobOption::kOutputFormat: return flag::kOutputFormat;
    case JobOption::kParquetCompression: return flag::kParquetCompression;
    case JobOption::kRowGroupRows: return flag::kRowGroupRows;
    case JobOption::kFilter: return flag::kFilter;
    case JobOption::kStats: return flag::kStats;
    case JobOption::kCapacity: return flag::kCapacity;
    case JobOption::kFpr: return flag::kFpr;
    case JobOption::kMemory: return flag::kMemory;
    case JobOption::kBlockBits: return flag::kBlockBits;
    case JobOption::kAllowHighFpr: return flag::kAllowHighFpr;
    case JobOption::kNoGrow: return flag::kNoGrow;
    case JobOption::kMaxMemory: return flag::kMaxMemory;
    case JobOption::kKey: return flag::kKey;
    case JobOption::kDelimiter: return flag::kDelimiter;
    case JobOption::kNormalize: return flag::kNormalize;
    case JobOption::kIgnoreKeyRules: return flag::kIgnoreKeyRules;
    case JobOption::kInputFormat: return flag::kInputFormat;
    case JobOption::kNullData: return flag::kNullData;
    case JobOption::kBackend: return flag::kBackend;
    case JobOption::kThreads: return flag::kThreads;
    case JobOption::kFilterThreads: return flag::kFilterThreads;
    case JobOption::kDevice: return flag::kDevice;
    case JobOption::kCheckpoint: return flag::kCheckpoint;
    case JobOption::kResume: return flag::kResume;
    case JobOption::kReplayableStdin: return flag::kReplayableStdin;
    case JobOption::kMpi: return flag::kMpi;
    case JobOption::kExact: return flag::kExact;
    case JobOption::kMissingKey: return flag::kMissingKey;
    case JobOption::kStrictJson: return flag::kStrictJson;
    case JobOption::kBatch: return flag::kBatch;
    case JobOption::kMaxRecordLength: return flag::kMaxRecordLength;
    case JobOption::kPieceBytes: return flag::kPieceBytes;
    case JobOption::kCompressedPieceBytes: return flag::kCompressedPieceBytes;
    // One flag takes both intervals ("60s,10M").
    case JobOption::kCheckpointEverySeconds:
    case JobOption::kCheckpointEveryRecords: return flag::kCheckpointEvery;
  }
  static constexpr Flag kUnknown{"?"};
  return kUnknown;
}

}  // namespace gdedup::cli
