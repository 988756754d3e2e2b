// check_job_spec (gdedup/job.h): the one check of a whole spec, before any
// file is looked at. Front ends only map their words to a JobSpec, so that
// they refuse the same specs in the same words, each option named as its
// front end names it.
#include <string>
#include <utility>

#include "columnar/parquet_table.h"
#include "gdedup/error.h"
#include "gdedup/frontend/number_text.h"
#include "gdedup/job.h"

namespace gdedup {
namespace {

// Numbers that are no choice: nothing could be planned with them.
void check_sizing_values(const JobSizing& sizing, const OptionNames& names) {
  if (sizing.capacity && *sizing.capacity == 0) {
    throw UsageError(names.given(JobOption::kCapacity) +
                     ": must be at least 1 (the distinct keys expected)");
  }
  const uint32_t bits = sizing.block_bits.value_or(0);
  if (sizing.block_bits && bits != 256 && bits != 512) {
    throw UsageError(names.given(JobOption::kBlockBits) + ": give 256 or 512 (the bits of a "
                     "filter block), or leave " + names.name(JobOption::kBlockBits) +
                     " out for whichever needs less memory");
  }
  const uint64_t block_bytes = bits == 512 ? 64 : 32;
  if (sizing.memory && *sizing.memory < block_bytes) {
    throw UsageError(names.given(JobOption::kMemory) + ": must be at least one filter block (" +
                     std::to_string(block_bytes) + " bytes)");
  }
  // Written so that NaN is refused too.
  if (sizing.fpr && !(*sizing.fpr > 0 && *sizing.fpr < 1)) {
    throw UsageError(names.given(JobOption::kFpr) + ": must be between 0 and 1 (exclusive), "
                     "e.g. 1e-4");
  }
}

// A rate planned above kMaxPlannedFpr without allow_high_fpr: such a
// filter, fixed or growing, takes most new keys for old ones once full.
void check_planned_rate(const JobSizing& sizing, const OptionNames& names) {
  if (sizing.rate() <= kMaxPlannedFpr || sizing.allow_high_fpr) return;
  throw UsageError(names.given(JobOption::kFpr) + " would take about " +
                   format_percent(sizing.rate()) + " of new keys for ones already present once "
                   "the filter is full; rates above " + format_rate(kMaxPlannedFpr) +
                   " are refused without " + names.name(JobOption::kAllowHighFpr));
}

// A rate and a memory budget given together: the budget fixes the filter's
// size, and so its rate, so the rate asked for would be ignored.
void check_rate_or_budget(const JobSizing& sizing, const OptionNames& names) {
  if (!sizing.memory || !sizing.fpr) return;
  throw UsageError(names.given(JobOption::kFpr) + " and " + names.given(JobOption::kMemory) +
                   " cannot both be given: " + names.name(JobOption::kFpr) + " sizes the "
                   "filter for a rate, " + names.name(JobOption::kMemory) + " fixes its "
                   "size (the rate is then reported)");
}


// A codec Parquet's writer has (columnar::kParquetCodecNames).
void check_parquet_codec(const JobSpec& o, const OptionNames& names) {
  for (const char* codec : columnar::kParquetCodecNames) {
    if (o.parquet_compression == codec) return;
  }
  throw UsageError(names.given(JobOption::kParquetCompression) + ": give one of " +
                   columnar::parquet_codec_list());
}

// Values that are no choice: the job could not run with them.
void check_values(const JobSpec& o, const OptionNames& names) {
  for (const auto& [option, count] : {std::pair{JobOption::kThreads, o.threads},
                                      std::pair{JobOption::kFilterThreads, o.filter_threads}}) {
    // 0 is the default share; given, it is a count of no threads.
    if (count != 0 || o.gave(option)) check_thread_count(option, count, names);
  }
  if (o.device < 0 || o.device > kMaxJobDevice) {
    throw UsageError(names.with(JobOption::kDevice, std::to_string(o.device)) +
                     ": give a GPU device number from 0 to " + std::to_string(kMaxJobDevice));
  }
  // A cap of no bytes holds nothing; 0 is what leaving the option out gives.
  if (o.max_memory == 0 && o.gave(JobOption::kMaxMemory)) {
    throw UsageError(names.given(JobOption::kMaxMemory) + ": a cap of 0 bytes holds no filter "
                     "or set; give the most bytes it may take, or leave " +
                     names.name(JobOption::kMaxMemory) + " out for no cap");
  }
  if (o.batch_records == 0) {
    throw UsageError(names.given(JobOption::kBatch) + ": must be at least 1 record");
  }
  if (o.row_group_rows == 0 && o.gave(JobOption::kRowGroupRows)) {
    throw UsageError(names.given(JobOption::kRowGroupRows) + ": must be at least 1 row");
  }
  if (o.gave(JobOption::kParquetCompression)) check_parquet_codec(o, names);
  for (const auto& [option, bytes] :
       {std::pair{JobOption::kMaxRecordLength, o.max_record_bytes},
        std::pair{JobOption::kPieceBytes, o.piece_bytes},
        std::pair{JobOption::kCompressedPieceBytes, o.compressed_piece_bytes}}) {
    if (bytes == 0) throw UsageError(names.given(option) + ": must be at least 1 byte");
  }
  const JobCheckpoints& c = o.checkpoint;
  if (o.gave(JobOption::kCheckpointEverySeconds) && !(c.every_seconds > 0)) {
    throw UsageError(names.given(JobOption::kCheckpointEverySeconds) + ": must be more than 0");
  }
  if (o.gave(JobOption::kCheckpointEveryRecords) && c.every_records == 0) {
    throw UsageError(names.given(JobOption::kCheckpointEveryRecords) +
                     ": must be at least 1 record");
  }
}

// Options given where another option makes them mean nothing.
void refuse_given_without_effect(const JobSpec& o, const OptionNames& names) {
  const bool u64 = o.format == InputFormat::kU64;
  for (const JobOption option : {JobOption::kKey, JobOption::kDelimiter, JobOption::kNormalize,
                                 JobOption::kMissingKey, JobOption::kOutputFormat}) {
    if (!u64 || !o.gave(option)) continue;
    throw UsageError(names.name(option) + " has no effect with " +
                     names.given(JobOption::kInputFormat) + ", whose records are fingerprints "
                     "used as they are; drop " + names.name(option));
  }
  if (u64 && o.gave(JobOption::kMaxRecordLength)) {
    throw UsageError(names.given(JobOption::kMaxRecordLength) + " does not apply to " +
                     names.with(JobOption::kInputFormat, "u64") + ", whose records are 8 bytes "
                     "each; leave it out");
  }
  if (!u64 && o.gave(JobOption::kDelimiter)) check_given_delimiter(o.keys.key, names);
  for (const JobOption option :
       {JobOption::kOutputFormat, JobOption::kParquetCompression, JobOption::kRowGroupRows}) {
    if (o.kind != JobKind::kBuild || !o.gave(option)) continue;
    throw UsageError(names.given(option) + " has no effect on a build, which writes no "
                     "output; drop " + names.name(option));
  }
  if (o.gave(JobOption::kDevice) && o.backend == "cpu") {
    throw UsageError(names.given(JobOption::kDevice) + " has no effect with " +
                     names.given(JobOption::kBackend) + ": it chooses the GPU backend's device; "
                     "drop " + names.name(JobOption::kDevice));
  }
  for (const JobOption every :
       {JobOption::kCheckpointEverySeconds, JobOption::kCheckpointEveryRecords}) {
    if (o.gave(every) && !o.checkpoint.enabled()) {
      throw UsageError(names.name(every) + " needs " +
                       names.with(JobOption::kCheckpoint, "FILE"));
    }
  }
}

// What the spec asks and would ignore, read from the values alone.
void refuse_ignored_options(const JobSpec& o, const OptionNames& names) {
  if (o.inputs.null_list && o.inputs.files_from.empty()) {
    const std::string null_list = names.name(JobOption::kNullList);
    throw UsageError(null_list + " has no effect without " + names.name(JobOption::kFilesFrom) +
                     ": it says the list of inputs separates its paths with NUL; drop " +
                     null_list + ", or add " + names.with(JobOption::kFilesFrom, "FILE") +
                     " (" + names.name(JobOption::kNullData) + " is for NUL-separated records)");
  }
  const bool u64 = o.format == InputFormat::kU64;
  const bool nul = o.record_separator == '\0';
  const std::string format = names.with(JobOption::kInputFormat, "u64");
  const std::string null_data = names.name(JobOption::kNullData);
  if (u64 && nul) {
    throw UsageError(null_data + " has no effect with " + format + ", whose records are 8 "
                     "bytes each with no separator; drop " + null_data);
  }
  if (!u64 && o.keys.delimiter == o.record_separator) {
    throw UsageError(names.given(JobOption::kDelimiter) + " is the record separator" +
                     (nul ? " (NUL, with " + null_data + ")" : std::string(" (newline)")) +
                     ", which never occurs inside a record; give another delimiter" +
                     (nul ? "" : ", or " + null_data + " for NUL-separated records that may "
                                 "hold newlines"));
  }
  // The options of JSON and CDXJ keys, given with another key.
  if (o.missing_key != keys::MissingKey::kError) {
    refuse_without_structured_key(
        JobOption::kMissingKey,
        names.with(JobOption::kMissingKey, keys::missing_key_text(o.missing_key)),
        o.format, o.keys, names);
  }
  if (o.strict_json) {
    refuse_without_structured_key(JobOption::kStrictJson, names.given(JobOption::kStrictJson),
                                  o.format, o.keys, names);
  }
  if (o.filter_threads > 0 && o.backend == "gpu") {
    throw UsageError(names.with(JobOption::kFilterThreads, std::to_string(o.filter_threads)) +
                     " has no effect with " + names.given(JobOption::kBackend) + ": it sets the "
                     "CPU backend's threads; drop " + names.name(JobOption::kFilterThreads));
  }
  if (o.threads > 1 && u64) {
    throw UsageError(names.with(JobOption::kThreads, std::to_string(o.threads)) +
                     " has no effect with " + format + ", which one thread reads faster than "
                     "the filter takes it; drop " + names.name(JobOption::kThreads));
  }
}

// What exact mode does not take: a Bloom filter's sizing, no_grow,
// fingerprint input, a backend other than the CPU and the GPU.
[[noreturn]] void refuse_with_exact(JobOption option, const std::string& why,
                                   const OptionNames& names) {
  throw UsageError(names.given(option) + " has no effect with " +
                   names.name(JobOption::kExact) + ": " + why + "; drop " + names.name(option));
}

// What sizes a Bloom filter means nothing to an exact set: refused rather
// than ignored, so that no one reads a plan or runs a job they did not get.
void refuse_bloom_sizing(const JobSizing& sizing, const OptionNames& names) {
  const std::string no_rate = "an exact set drops no key for a false positive, so it has no "
                              "rate to plan for and no size to fix; it grows as keys come (" +
                              names.name(JobOption::kMaxMemory) + " caps it)";
  if (sizing.fpr) refuse_with_exact(JobOption::kFpr, no_rate, names);
  if (sizing.memory) refuse_with_exact(JobOption::kMemory, no_rate, names);
  if (sizing.block_bits) refuse_with_exact(JobOption::kBlockBits, no_rate, names);
  if (sizing.allow_high_fpr) refuse_with_exact(JobOption::kAllowHighFpr, no_rate, names);
}

void refuse_for_exact(const JobSpec& o, const OptionNames& names) {
  const std::string exact = names.name(JobOption::kExact);
  auto refuse = [&](JobOption option, const std::string& why) {
    refuse_with_exact(option, why, names);
  };
  refuse_bloom_sizing(o.sizing, names);
  if (o.no_grow) {
    refuse(JobOption::kNoGrow, "an exact set must grow to hold every key; " +
                                   names.name(JobOption::kMaxMemory) + " caps it");
  }
  if (o.format == InputFormat::kU64) {
    throw UsageError(names.given(JobOption::kInputFormat) + " cannot be used with " + exact +
                     ": its records are 64-bit fingerprints, and an exact set keeps 84 bits "
                     "of each key's 128-bit hash; give the keys as text");
  }
  if (o.backend != "auto" && o.backend != "cpu" && o.backend != "gpu") {
    throw UsageError(names.given(JobOption::kBackend) + " cannot run " + exact + ": exact "
                     "mode runs on the CPU or a GPU; drop " + names.name(JobOption::kBackend) +
                     " or give cpu or gpu");
  }
}

}  // namespace

void check_thread_count(JobOption option, unsigned count, const OptionNames& names) {
  if (count >= 1 && count <= kMaxJobThreads) return;
  throw UsageError(names.with(option, std::to_string(count)) + ": give 1 to " +
                   std::to_string(kMaxJobThreads) + " threads, or leave " + names.name(option) +
                   " out for the default share of this machine's");
}

void check_job_sizing(const JobSizing& sizing, const OptionNames& names, bool exact) {
  check_sizing_values(sizing, names);
  check_rate_or_budget(sizing, names);
  if (exact) return refuse_bloom_sizing(sizing, names);
  check_planned_rate(sizing, names);
}

void check_job_spec(const JobSpec& spec, const OptionNames& names) {
  check_sizing_values(spec.sizing, names);
  check_values(spec, names);
  refuse_given_without_effect(spec, names);
  check_rate_or_budget(spec.sizing, names);
  refuse_ignored_options(spec, names);
  if (spec.exact) {
    refuse_for_exact(spec, names);
    return;
  }
  check_planned_rate(spec.sizing, names);
}

}  // namespace gdedup
