#include "cli/job_checks.h"

#include <vector>

#include "cli/console.h"
#include "cli/file_locks.h"
#include "cli/numbers.h"
#include "cli/preflight.h"
#include "cli/report.h"
#include "gdedup/error.h"
#include "gdedup/output_parts.h"
#include "gdedup/parts_run.h"

namespace gdedup::cli {

Mode mode_for(const JobOptions& o, JobKind kind) {
  switch (kind) {
    case JobKind::kDedup: return o.duplicates ? Mode::kDuplicates : Mode::kDedup;
    case JobKind::kBuild: return Mode::kBuild;
    case JobKind::kQuery: return o.absent ? Mode::kQueryAbsent : Mode::kQueryPresent;
  }
  return Mode::kDedup;
}

KeyRules command_key_rules(InputFormat format, const KeyOptions& keys, char record_separator) {
  KeyRules rules;
  rules.format = format;
  if (format == InputFormat::kText) {
    rules.keys = keys;
    rules.record_separator = record_separator;
  }
  return rules;
}

// A filter whose keys were made by other rules holds other keys: a query
// would find none of its own, a dedup would keep every record again. So it
// is refused, unless --ignore-key-rules; a file that records no rules is
// used with a note.
void check_key_rules(const JobOptions& o, const FilterRules& rules, uint32_t version,
                     const KeyRules& mine) {
  if (!rules.keys) {
    Console::get().info("note: " + o.filter_path + " does not record the key rules of its keys (" +
                        key_rules_text(rules, version) +
                        "); it is used with this command's: " + mine.to_string());
    return;
  }
  if (*rules.keys == mine) return;
  const std::string both = "the filter " + o.filter_path + " was built with key rules \"" +
                           rules.keys->to_string() + "\" but this command uses \"" +
                           mine.to_string() + "\"";
  if (o.keys.ignore_key_rules) {
    Console::get().warn(both + "; used anyway (--ignore-key-rules)");
    return;
  }
  throw UsageError(both + ", so its keys would not match; give the --key, --delimiter, "
                   "--normalize, --input-format and -z (NUL-separated records) it was built "
                   "with, or add --ignore-key-rules to use it anyway");
}

uint64_t max_record_bytes(const std::string& text, InputFormat format) {
  if (text.empty()) return PipelineOptions{}.max_record_bytes;
  if (format == InputFormat::kU64) {
    throw UsageError("--max-record-length " + text + " does not apply to --input-format u64, "
                     "whose records are 8 bytes each; leave it out");
  }
  const uint64_t bytes = parse_bytes(text, "--max-record-length");
  if (bytes == 0) {
    throw UsageError("--max-record-length " + text + ": must be at least 1 byte");
  }
  return bytes;
}

uint64_t batch_records(const std::string& text) {
  if (text.empty()) return PipelineOptions{}.batch_records;
  const uint64_t batch = parse_count(text, "--batch");
  if (batch == 0) throw UsageError("--batch " + text + ": must be at least 1 record");
  return batch;
}

uint64_t piece_bytes(const std::string& text) {
  if (text.empty()) return PipelineOptions{}.piece_bytes;
  const uint64_t bytes = parse_bytes(text, "--piece-bytes");
  if (bytes == 0) throw UsageError("--piece-bytes " + text + ": must be at least 1 byte");
  return bytes;
}

std::string output_to_lock(const JobOptions& o, Mode mode) {
  if (mode == Mode::kBuild) return "";
  if (o.output_parts.empty()) return o.output != "-" ? o.output : "";
  io::prepare_parts_dir(o.output_parts);
  return io::parts_manifest(o.output_parts);
}

void check_files(const JobOptions& o, Mode mode, bool saves_filter) {
  if (!o.output_parts.empty()) {
    PipelineOptions parts;
    parts.inputs = o.inputs;
    parts.mode = mode;
    parts.output = o.output;
    parts.output_parts = o.output_parts;
    if (o.checkpoint.enabled()) parts.checkpoint = o.checkpoint.path;
    check_parts_options(parts);
  }
  std::vector<WrittenFile> written;
  if (mode != Mode::kBuild && o.output_parts.empty()) written.push_back({o.output, "output", true});
  if (saves_filter) written.push_back({o.filter_path, "filter", false});
  if (o.checkpoint.enabled()) written.push_back({o.checkpoint.path, "checkpoint", false});
  if (!o.stats_path.empty()) {
    written.push_back({o.stats_path, "statistics file", writes_in_place(o.stats_path), false});
  }
  std::vector<std::string> read = o.inputs;
  if (!o.filter_path.empty() && !saves_filter) read.push_back(o.filter_path);
  // Read once at the start, but a job must not destroy its own list either.
  if (!o.input_list.files_from.empty()) read.push_back(o.input_list.files_from);
  check_written_files(written, read);
  check_checkpoint_options(o.checkpoint, o.inputs, mode == Mode::kBuild ? "" : o.output);
  for (const WrittenFile& file : written) check_writable(file);
}

}  // namespace gdedup::cli
