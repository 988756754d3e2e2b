#include "job/job_checks.h"

#include <vector>

#include "gdedup/filter_report.h"
#include "gdedup/error.h"
#include "gdedup/job_files.h"
#include "gdedup/set_file.h"
#include "job/checkpoint_job.h"
#include "job/growth_choice.h"
#include "gdedup/output_parts.h"
#include "gdedup/parts_run.h"

namespace gdedup::job {

KeyRules job_key_rules(const JobSpec& spec) {
  KeyRules rules;
  rules.format = spec.format;
  if (spec.format == InputFormat::kText) {
    rules.keys = spec.keys;
    rules.record_separator = spec.record_separator;
  }
  return rules;
}

// A filter whose keys were made by other rules holds other keys: a query
// would find none of its own, a dedup would keep every record again. So it
// is refused, unless ignore_key_rules; a file that records no rules is
// used with a note.
void check_key_rules(const Job& job, const FilterRules& rules, uint32_t version,
                     const KeyRules& mine) {
  const JobSpec& o = job.spec;
  if (!rules.keys) {
    job.events.info("note: " + o.filter_path + " does not record the key rules of its keys (" +
                        key_rules_text(rules, version) +
                        "); it is used with this command's: " + mine.to_string());
    return;
  }
  if (*rules.keys == mine) return;
  const std::string both = (o.exact ? "the set " : "the filter ") + o.filter_path +
                           " was built with key rules \"" + rules.keys->to_string() +
                           "\" but this command uses \"" + mine.to_string() + "\"";
  const std::string ignore = job.name(JobOption::kIgnoreKeyRules);
  if (o.ignore_key_rules) {
    job.events.warn(both + "; used anyway (" + ignore + ")");
    return;
  }
  throw UsageError(both + ", so its keys would not match; give the " +
                   job.name(JobOption::kKey) + ", " + job.name(JobOption::kDelimiter) + ", " +
                   job.name(JobOption::kNormalize) + ", " + job.name(JobOption::kInputFormat) +
                   " and " + job.name(JobOption::kNullData) + " (NUL-separated records) it was "
                   "built with, or add " + ignore + " to use it anyway");
}

std::string output_to_lock(const Job& job) {
  const JobSpec& o = job.spec;
  const Mode mode = job.mode();
  if (mode == Mode::kBuild) return "";
  if (o.output_parts.empty()) return o.output != "-" ? o.output : "";
  io::prepare_parts_dir(o.output_parts, job.events);
  return io::parts_manifest(o.output_parts);
}

void check_files(const Job& job) {
  const JobSpec& o = job.spec;
  const Mode mode = job.mode();
  const bool saves_filter = o.saves_filter();
  if (!o.output_parts.empty()) {
    PipelineOptions parts;
    parts.inputs = job.inputs;
    parts.mode = mode;
    parts.output = o.output;
    parts.output_parts = o.output_parts;
    if (o.checkpoint.enabled()) parts.checkpoint = o.checkpoint.path;
    parts.names = &job.events;
    check_parts_options(parts);
  }
  std::vector<WrittenFile> written;
  if (mode != Mode::kBuild && o.output_parts.empty()) written.push_back({o.output, "output", true});
  if (saves_filter) written.push_back({o.filter_path, o.exact ? "set file" : "filter", false});
  if (o.checkpoint.enabled()) written.push_back({o.checkpoint.path, "checkpoint", false});
  if (!o.stats_path.empty()) {
    written.push_back({o.stats_path, "statistics file", writes_in_place(o.stats_path), false});
  }
  std::vector<std::string> read = job.inputs;
  if (!o.filter_path.empty() && !saves_filter) read.push_back(o.filter_path);
  // Read once at the start, but a job must not destroy its own list either.
  if (!o.inputs.files_from.empty()) read.push_back(o.inputs.files_from);
  check_written_files(written, read);
  check_checkpoint_options(job);
  for (const WrittenFile& file : written) check_writable(file);
}

void refuse_ignored_options(const Job& job) {
  const JobSpec& o = job.spec;
  for (const auto& [option, count] :
       {std::pair{JobOption::kThreads, o.threads}, std::pair{JobOption::kFilterThreads,
                                                             o.filter_threads}}) {
    if (count > kMaxJobThreads) {
      throw UsageError(job.events.with(option, std::to_string(count)) + ": give at most " +
                       std::to_string(kMaxJobThreads) + " threads (or none, for the default "
                       "share of this machine's)");
    }
  }
  if (o.device < 0 || o.device > kMaxJobDevice) {
    throw UsageError(job.events.with(JobOption::kDevice, std::to_string(o.device)) +
                     ": give a GPU device number from 0 to " + std::to_string(kMaxJobDevice));
  }
  check_rate_or_budget(o.sizing, job.events);
  if (o.inputs.null_list && o.inputs.files_from.empty()) {
    const std::string null_list = job.name(JobOption::kNullList);
    throw UsageError(null_list + " has no effect without " + job.name(JobOption::kFilesFrom) +
                     ": it says the list of inputs separates its paths with NUL; drop " +
                     null_list + ", or add " + job.events.with(JobOption::kFilesFrom, "FILE") +
                     " (" + job.name(JobOption::kNullData) + " is for NUL-separated records)");
  }
  const bool u64 = o.format == InputFormat::kU64;
  const bool nul = o.record_separator == '\0';
  const std::string format = job.events.with(JobOption::kInputFormat, "u64");
  const std::string null_data = job.name(JobOption::kNullData);
  if (u64 && nul) {
    throw UsageError(null_data + " has no effect with " + format + ", whose records are 8 "
                     "bytes each with no separator; drop " + null_data);
  }
  if (!u64 && o.keys.delimiter == o.record_separator) {
    throw UsageError(job.given(JobOption::kDelimiter) + " is the record separator" +
                     (nul ? " (NUL, with " + null_data + ")" : std::string(" (newline)")) +
                     ", which never occurs inside a record; give another delimiter" +
                     (nul ? "" : ", or " + null_data + " for NUL-separated records that may "
                                 "hold newlines"));
  }
  // The options of JSON and CDXJ keys, given with another key.
  if (o.missing_key != keys::MissingKey::kError) {
    refuse_without_structured_key(
        JobOption::kMissingKey,
        job.events.with(JobOption::kMissingKey, keys::missing_key_text(o.missing_key)),
        o.format, o.keys, job.events);
  }
  if (o.strict_json) {
    refuse_without_structured_key(JobOption::kStrictJson, job.given(JobOption::kStrictJson),
                                  o.format, o.keys, job.events);
  }
  const std::string filter_threads = job.name(JobOption::kFilterThreads);
  if (o.filter_threads > 0 && o.backend == "gpu") {
    throw UsageError(job.events.with(JobOption::kFilterThreads,
                                     std::to_string(o.filter_threads)) +
                     " has no effect with " + job.given(JobOption::kBackend) + ": it sets the "
                     "CPU backend's threads; drop " + filter_threads);
  }
  const std::string threads = job.name(JobOption::kThreads);
  if (o.threads > 1 && u64) {
    throw UsageError(job.events.with(JobOption::kThreads, std::to_string(o.threads)) +
                     " has no effect with " + format + ", which one thread reads faster than "
                     "the filter takes it; drop " + threads);
  }
}

void refuse_for_exact(const Job& job) {
  const JobSpec& o = job.spec;
  const std::string exact = job.name(JobOption::kExact);
  auto refuse = [&](JobOption option, const std::string& why) {
    throw UsageError(job.given(option) + " has no effect with " + exact + ": " + why +
                     "; drop " + job.name(option));
  };
  const std::string no_rate = "an exact set drops no key for a false positive, so it has no "
                              "rate to plan for and no size to fix; it grows as keys come (" +
                              job.name(JobOption::kMaxMemory) + " caps it)";
  if (o.sizing.fpr) refuse(JobOption::kFpr, no_rate);
  if (o.sizing.memory) refuse(JobOption::kMemory, no_rate);
  if (o.sizing.block_bits != 0) refuse(JobOption::kBlockBits, no_rate);
  if (o.sizing.allow_high_fpr) refuse(JobOption::kAllowHighFpr, no_rate);
  if (o.no_grow) {
    refuse(JobOption::kNoGrow, "an exact set must grow to hold every key; " +
                                   job.name(JobOption::kMaxMemory) + " caps it");
  }
  if (o.format == InputFormat::kU64) {
    throw UsageError(job.given(JobOption::kInputFormat) + " cannot be used with " + exact +
                     ": its records are 64-bit fingerprints, and an exact set keeps 84 bits "
                     "of each key's 128-bit hash; give the keys as text");
  }
  if (o.backend != "auto" && o.backend != "cpu" && o.backend != "gpu") {
    throw UsageError(job.given(JobOption::kBackend) + " cannot run " + exact + ": exact "
                     "mode runs on the CPU or a GPU; drop " + job.name(JobOption::kBackend) +
                     " or give cpu or gpu");
  }
}

void check_set_cap(const Job& job, uint64_t bytes, const std::string& what) {
  gdedup::check_set_cap(bytes, job.spec.max_memory, what, job.given(JobOption::kMaxMemory));
}

void check_target_options(const Job& job) {
  refuse_ignored_options(job);
  if (job.spec.exact) {
    refuse_for_exact(job);
    return;
  }
  check_planned_rate(job.spec.sizing, job.events);
  growth_chosen(job);
}

}  // namespace gdedup::job
