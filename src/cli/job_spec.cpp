#include "cli/job_spec.h"

#include <algorithm>
#include <set>

#include "cli/checkpoint_options.h"
#include "cli/flags.h"
#include "cli/numbers.h"
#include "gdedup/error.h"
#include "gdedup/frontend/number_text.h"

namespace gdedup::cli {
namespace {

// A size as typed, or `fallback` when not given; the job refuses 0.
uint64_t bytes_or(const std::string& text, const Flag& option, uint64_t fallback) {
  return text.empty() ? fallback : parse_bytes(text, option.name);
}

// --checkpoint-every sets both intervals (the one not typed is 0) and says
// which it gave; the job refuses it without --checkpoint.
JobCheckpoints checkpoints(const CheckpointOptions& options, std::set<JobOption>& given) {
  JobCheckpoints c;
  c.path = options.path;
  c.resume = options.resume;
  c.replayable_stdin = options.replayable_stdin;
  given.erase(JobOption::kCheckpointEverySeconds);
  given.erase(JobOption::kCheckpointEveryRecords);
  if (options.every.empty()) return c;
  const CheckpointInterval interval = parse_checkpoint_every(options.every);
  c.every_seconds = interval.seconds;
  c.every_records = interval.records;
  if (interval.seconds > 0) given.insert(JobOption::kCheckpointEverySeconds);
  if (interval.records > 0) given.insert(JobOption::kCheckpointEveryRecords);
  return c;
}

}  // namespace

JobSizing parse_sizing(const SizingOptions& options) {
  JobSizing r;
  // The values are the job's to check (check_job_sizing).
  if (!options.capacity.empty()) r.capacity = parse_count(options.capacity, flag::kCapacity.name);
  if (!options.memory.empty()) r.memory = parse_bytes(options.memory, flag::kMemory.name);
  if (!options.fpr.empty()) r.fpr = parse_rate(options.fpr, flag::kFpr.name);
  if (!options.block_bits.empty()) {
    r.block_bits = static_cast<uint32_t>(
        std::min<uint64_t>(parse_count(options.block_bits, flag::kBlockBits.name), UINT32_MAX));
  }
  r.allow_high_fpr = options.allow_high_fpr;
  return r;
}

Plan plan_standalone(const JobSizing& request) {
  if (!request.capacity) {
    throw UsageError("plan needs " + flag::kCapacity + " N (the distinct keys expected), with " +
                     flag::kFpr + " P or " + flag::kMemory + " BYTES");
  }
  return plan_for_keys(request, *request.capacity);
}

JobSpec job_spec(const JobOptions& o, JobKind kind) {
  JobSpec spec;
  spec.kind = kind;
  spec.duplicates = o.duplicates;
  spec.absent = o.absent;
  spec.inputs.paths = o.inputs;
  spec.inputs.files_from = o.input_list.files_from;
  spec.inputs.null_list = o.input_list.null_list;
  spec.inputs.recursive = o.input_list.recursive;
  spec.inputs.skip_missing = o.input_list.skip_missing;
  spec.format = parse_input_format(o.input_format);
  spec.sizing = parse_sizing(o.sizing);
  if (!o.max_memory.empty()) spec.max_memory = parse_bytes(o.max_memory, flag::kMaxMemory.name);
  spec.no_grow = o.no_grow;
  spec.exact = o.exact;
  o.progress_mode();  // --progress with --no-progress
  if (!o.batch.empty()) spec.batch_records = parse_count(o.batch, flag::kBatch.name);
  spec.max_record_bytes = bytes_or(o.max_record_length, flag::kMaxRecordLength,
                                   spec.max_record_bytes);
  spec.piece_bytes = bytes_or(o.piece_bytes, flag::kPieceBytes, spec.piece_bytes);
  spec.compressed_piece_bytes = bytes_or(o.compressed_piece_bytes, flag::kCompressedPieceBytes,
                                         spec.compressed_piece_bytes);
  // u64 records have no key options (check_job_spec refuses them given).
  if (spec.format == InputFormat::kText) spec.keys = parse_key_flags(o.keys);
  spec.missing_key = keys::parse_missing_key(o.keys.missing_key);
  spec.strict_json = o.keys.strict_json;
  spec.ignore_key_rules = o.keys.ignore_key_rules;
  spec.record_separator = o.record_separator();
  spec.output = o.output;
  spec.output_parts = o.output_parts;
  // Checked by the option itself (parquet or lines); "" is the default.
  output_format_named(o.output_format, spec.output_format);
  spec.parquet_compression = o.parquet_compression;
  if (!o.row_group_rows.empty()) {
    spec.row_group_rows = parse_count(o.row_group_rows, flag::kRowGroupRows.name);
  }
  spec.filter_path = o.filter_path;
  spec.stats_path = o.stats_path;
  spec.backend = o.backend;
  spec.threads = o.threads;
  spec.filter_threads = o.filter_threads;
  spec.device = o.device;
  spec.given = o.given;
  spec.checkpoint = checkpoints(o.checkpoint, spec.given);
  return spec;
}

std::string flag_given(const JobOptions& o, JobOption option) {
  const std::string name = flag_of(option).name;
  switch (option) {
    case JobOption::kMaxMemory: return name + " " + o.max_memory;
    case JobOption::kMemory: return name + " " + o.sizing.memory;
    case JobOption::kFpr: return name + " " + o.sizing.fpr;
    case JobOption::kCapacity: return name + " " + o.sizing.capacity;
    case JobOption::kBackend: return name + " " + o.backend;
    case JobOption::kKey: return name + " " + o.keys.key;
    case JobOption::kInputFormat: return name + " " + o.input_format;
    case JobOption::kOutputFormat: return name + " " + o.output_format;
    case JobOption::kDevice: return name + " " + std::to_string(o.device);
    case JobOption::kDelimiter: return name + " " + o.keys.delimiter;
    case JobOption::kBlockBits: return name + " " + o.sizing.block_bits;
    case JobOption::kBatch: return name + " " + o.batch;
    case JobOption::kParquetCompression: return name + " " + o.parquet_compression;
    case JobOption::kRowGroupRows: return name + " " + o.row_group_rows;
    case JobOption::kMaxRecordLength: return name + " " + o.max_record_length;
    case JobOption::kPieceBytes: return name + " " + o.piece_bytes;
    case JobOption::kCompressedPieceBytes: return name + " " + o.compressed_piece_bytes;
    default: return name;
  }
}

}  // namespace gdedup::cli
