#include "cli/job_spec.h"

#include "cli/checkpoint_options.h"
#include "cli/flags.h"
#include "cli/numbers.h"
#include "gdedup/error.h"
#include "gdedup/number_text.h"

namespace gdedup::cli {
namespace {

uint64_t max_record_bytes(const std::string& text, InputFormat format) {
  if (text.empty()) return PipelineOptions{}.max_record_bytes;
  if (format == InputFormat::kU64) {
    throw UsageError(flag::kMaxRecordLength + " " + text + " does not apply to " +
                     flag::kInputFormat + " u64, whose records are 8 bytes each; leave it out");
  }
  const uint64_t bytes = parse_bytes(text, flag::kMaxRecordLength.name);
  if (bytes == 0) {
    throw UsageError(flag::kMaxRecordLength + " " + text + ": must be at least 1 byte");
  }
  return bytes;
}

uint64_t batch_records(const std::string& text) {
  if (text.empty()) return PipelineOptions{}.batch_records;
  const uint64_t batch = parse_count(text, flag::kBatch.name);
  if (batch == 0) throw UsageError(flag::kBatch + " " + text + ": must be at least 1 record");
  return batch;
}

// --piece-bytes and --compressed-piece-bytes: `fallback` when not given.
uint64_t piece_bytes(const std::string& text, const char* option, uint64_t fallback) {
  if (text.empty()) return fallback;
  const uint64_t bytes = parse_bytes(text, option);
  if (bytes == 0) throw UsageError(option + (" " + text) + ": must be at least 1 byte");
  return bytes;
}

JobCheckpoints checkpoints(const CheckpointOptions& options) {
  if (!options.every.empty() && !options.enabled()) {
    throw UsageError(flag::kCheckpointEvery + " needs " + flag::kCheckpoint + " FILE");
  }
  JobCheckpoints c;
  c.path = options.path;
  c.resume = options.resume;
  c.replayable_stdin = options.replayable_stdin;
  if (options.enabled()) {
    const CheckpointInterval interval = parse_checkpoint_every(options.every);
    c.every_seconds = interval.seconds;
    c.every_records = interval.records;
  }
  return c;
}

}  // namespace

JobSizing parse_sizing(const SizingOptions& options) {
  JobSizing r;
  // A rate with a memory budget is the job's to refuse (check_rate_or_budget).
  if (!options.capacity.empty()) {
    r.capacity = parse_count(options.capacity, flag::kCapacity.name);
    if (*r.capacity == 0) {
      throw UsageError(flag::kCapacity + " " + options.capacity +
                       ": must be at least 1 (the distinct keys expected)");
    }
  }
  if (!options.memory.empty()) r.memory = parse_bytes(options.memory, flag::kMemory.name);
  if (!options.fpr.empty()) r.fpr = parse_fpr(options.fpr, flag::kFpr.name);
  r.block_bits = options.block_bits;
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
  if (!o.max_memory.empty()) {
    spec.max_memory = parse_memory_cap(o.max_memory, flag::kMaxMemory.name);
  }
  spec.no_grow = o.no_grow;
  spec.exact = o.exact;
  o.progress_mode();  // --progress with --no-progress
  spec.batch_records = batch_records(o.batch);
  spec.max_record_bytes = max_record_bytes(o.max_record_length, spec.format);
  spec.piece_bytes = piece_bytes(o.piece_bytes, flag::kPieceBytes.name, spec.piece_bytes);
  spec.compressed_piece_bytes = piece_bytes(o.compressed_piece_bytes,
                                            flag::kCompressedPieceBytes.name,
                                            spec.compressed_piece_bytes);
  // u64 records have no key options (refuse_ignored_options).
  if (spec.format == InputFormat::kText) spec.keys = parse_key_flags(o.keys);
  spec.missing_key = keys::parse_missing_key(o.keys.missing_key);
  spec.strict_json = o.keys.strict_json;
  spec.ignore_key_rules = o.keys.ignore_key_rules;
  spec.record_separator = o.record_separator();
  spec.output = o.output;
  spec.output_parts = o.output_parts;
  spec.filter_path = o.filter_path;
  spec.stats_path = o.stats_path;
  spec.backend = o.backend;
  spec.threads = o.threads;
  spec.filter_threads = o.filter_threads;
  spec.device = o.device;
  spec.checkpoint = checkpoints(o.checkpoint);
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
    case JobOption::kDevice: return name + " " + std::to_string(o.device);
    case JobOption::kDelimiter: return name + " " + o.keys.delimiter;
    default: return name;
  }
}

}  // namespace gdedup::cli
