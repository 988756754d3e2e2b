#include "job/job_checks.h"

#include <vector>

#include "gdedup/error.h"
#include "gdedup/frontend/filter_report.h"
#include "gdedup/frontend/job_files.h"
#include "gdedup/set_file.h"
#include "io/output_parts.h"
#include "job/checkpoint_job.h"
#include "job/growth_choice.h"
#include "pipeline/parts_run.h"

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

void check_set_cap(const Job& job, uint64_t bytes, const std::string& what) {
  gdedup::check_set_cap(bytes, job.spec.max_memory, what, job.given(JobOption::kMaxMemory));
}

void check_target_options(const Job& job) {
  check_job_spec(job.spec, job.events);
  if (!job.spec.exact) growth_chosen(job);
}

}  // namespace gdedup::job
