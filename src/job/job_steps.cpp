#include "job/job_steps.h"

#include <algorithm>

#include "gdedup/checkpoint.h"
#include "gdedup/error.h"
#include "gdedup/frontend/paths.h"
#include "io/input_file.h"
#include "io/output_file.h"
#include "job/checkpoint_job.h"
#include "job/input_list.h"
#include "job/job_checks.h"
#include "job/overfull.h"
#include "job/stats.h"

namespace gdedup {

using job::saved_file_word;

Mode JobSpec::mode() const {
  switch (kind) {
    case JobKind::kDedup: return duplicates ? Mode::kDuplicates : Mode::kDedup;
    case JobKind::kBuild: return Mode::kBuild;
    case JobKind::kQuery: return absent ? Mode::kQueryAbsent : Mode::kQueryPresent;
  }
  return Mode::kDedup;
}

std::string unfinished_job_text(const JobSpec& o, const JobEvents& events,
                                const std::string& why) {
  const Mode mode = o.mode();
  std::string text = "the job did not finish" + why;
  if (mode != Mode::kBuild && !o.output_parts.empty()) {
    text += "; the folder " + o.output_parts + " keeps its previous output (its MANIFEST is "
            "written last), perhaps beside part files of this job that no manifest lists";
  } else if (mode != Mode::kBuild && !io::replaced_file(o.output).empty()) {
    text += "; the output " + o.output + " was left as it was before the job";
  } else if (mode != Mode::kBuild) {
    text += "; " + (o.output == "-" ? std::string("standard output") : o.output) +
            " holds only part of the result, perhaps ending inside a record";
  }
  if (o.saves_filter()) {
    text += "; the " + saved_file_word(o) + " " + o.filter_path + " was not updated";
  }
  if (!o.stats_path.empty()) text += "; " + o.stats_path + " was not written";
  if (o.kind != JobKind::kQuery) {
    text += "; " + events.with(JobOption::kCheckpoint, "FILE") + " makes a long job resumable";
  }
  return text;
}

}  // namespace gdedup

namespace gdedup::job {

std::string saved_file_word(const JobSpec& o) { return o.exact ? "set file" : "filter"; }

namespace {

// Standard input named twice, or an input that cannot be read: refused,
// worded as opening it would.
void check_inputs(const std::vector<std::string>& inputs) {
  int stdin_count = 0;
  for (const std::string& path : inputs) {
    if (path == "-") {
      if (++stdin_count > 1) {
        throw UsageError("standard input ('-') is named more than once among the inputs");
      }
      continue;
    }
    io::check_readable(path);
  }
}

}  // namespace

uint64_t resolve_and_check_inputs(Job& job) {
  ResolvedInputs inputs = resolve_inputs(job.spec.inputs, job.events);
  job.inputs = std::move(inputs.paths);
  check_inputs(job.inputs);
  return inputs.skipped.size();
}

PipelineOptions pipeline_options(const Job& job) {
  const JobSpec& o = job.spec;
  PipelineOptions run;
  run.inputs = job.inputs;
  run.output = o.output;
  run.output_parts = o.output_parts;
  run.output_format = o.output_format;
  run.mode = job.mode();
  run.format = o.format;
  run.record_separator = o.record_separator;
  run.keys = o.format == InputFormat::kText ? o.keys : KeyOptions{};
  run.missing_key = o.missing_key;
  run.strict_json = o.strict_json;
  run.batch_records = o.batch_records;
  run.parquet_compression = o.parquet_compression;
  run.row_group_rows = o.row_group_rows;
  run.piece_bytes = o.piece_bytes;
  run.compressed_piece_bytes = o.compressed_piece_bytes;
  run.max_record_bytes = o.max_record_bytes;
  if (o.checkpoint.enabled()) {
    run.checkpoint = o.checkpoint.path;
    run.checkpoint_every_seconds = o.checkpoint.every_seconds;
    run.checkpoint_every_records = o.checkpoint.every_records;
    run.replayable_stdin = o.checkpoint.replayable_stdin;
  }
  run.keep_checkpoint = o.saves_filter();
  run.saved_filter = o.saves_filter() ? o.filter_path : "";
  run.names = &job.events;
  run.on_publish = [&events = job.events] { events.publishing(); };
  return run;
}

FileLocks lock_files(const Job& job) {
  const JobSpec& o = job.spec;
  return lock_job_files(output_to_lock(job), o.checkpoint.enabled() ? o.checkpoint.path : "",
                        o.saves_filter() ? o.filter_path : "", job.events);
}

KeyRules saved_key_rules(const Job& job, bool filter_existed) {
  if (filter_existed) {
    if (auto keys = read_filter_info(job.spec.filter_path).rules.keys) return *keys;
  }
  return job_key_rules(job.spec);
}

JobResult start_result(const Job& job, uint64_t inputs_skipped, const ResumeState* resume) {
  JobResult result;
  result.mode = job.mode();
  result.checkpointing = job.spec.checkpoint.enabled();
  result.inputs = job.inputs.size();
  result.inputs_skipped = inputs_skipped;
  if (resume != nullptr) {
    result.resumed_records = resume->records;
    result.resumed_bytes = resume->input_bytes;
  }
  return result;
}

JobEnding ending_of(JobTarget& target, const TargetEnd& end) {
  JobEnding ending;
  ending.layers = end.layers;
  ending.growing = end.growing;
  ending.growth_refused = end.growth_refused;
  ending.filter_existed = end.file_existed;
  ending.save = [&target] { target.save(); };
  return ending;
}

void finish_job(Job& job, const JobEnding& ending, JobResult& result) {
  const JobSpec& o = job.spec;
  // A query adds no keys: its filter's state is not its doing.
  std::optional<std::string> overfull;
  if (o.kind != JobKind::kQuery) {
    overfull = overfull_error(ending.layers, filter_end(job, ending.growing,
                                                        ending.growth_refused,
                                                        ending.filter_existed));
  }
  // A filter far past its plan is not saved (overfull_error says so).
  if (o.saves_filter() && !overfull) {
    ending.save();
    result.filter_saved = true;
    job.published.filter = true;
  }
  job.published.overfull = overfull.has_value();
  // Only now, with the output renamed and the filter saved, is the
  // checkpoint no longer needed (PipelineOptions::keep_checkpoint).
  if (o.saves_filter() && o.checkpoint.enabled() && ending.remove_checkpoint) {
    fs::unlink_file(o.checkpoint.path);
  }
  // The status says that what is written is not what was promised.
  if (overfull) {
    result.status = JobStatus::kOverfull;
    result.message = *overfull;
    for (const std::optional<Overfull>& layer : ending.layers) {
      if (layer) {
        result.overfull = layer;
        break;
      }
    }
  }
  if (!o.stats_path.empty() && ending.write_stats) {
    write_stats_file(o.stats_path, stats_json(result).str() + "\n");
  }
  job.published.stats = true;
}

bool run_stream(Job& job, JobResult& result, bool resumed, const bool& began,
                const std::function<PipelineStats()>& run) {
  try {
    result.stats = run();
  } catch (const UsageError&) {
    throw;
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::broken_pipe) {
      // The reader of our output has gone (`gdedup dedup big | head`): done,
      // unless the job was to record what it saw.
      if (closed_output_is_failure(job.spec)) throw Error(closed_pipe_text(job));
      result.status = JobStatus::kOutputClosed;
      return false;
    }
    // A resume refused before its first batch has changed nothing.
    if (resumed && !began) throw;
    throw Error(add_sentence(e.what(), aftermath(job)), e);
  }
  if (result.stats.interrupted) {
    result.status = JobStatus::kInterrupted;
    result.message = interrupted_line(job, result.stats);
    return false;
  }
  job.published.output = true;
  return true;
}

std::string aftermath(const Job& job) {
  // What the output holds the pipeline says itself: only it knows.
  const JobSpec& o = job.spec;
  std::string text;
  if (o.saves_filter()) {
    text += " The " + saved_file_word(o) + " " + o.filter_path + " was not updated.";
  }
  if (o.checkpoint.enabled() && file_exists(o.checkpoint.path)) {
    text += " Once the cause is fixed, the same command plus " + job.name(JobOption::kResume) +
            " continues from the checkpoint " + o.checkpoint.path + ".";
  }
  return text;
}

bool closed_output_is_failure(const JobSpec& spec) {
  return spec.saves_filter() || !spec.stats_path.empty();
}

std::string closed_pipe_text(const Job& job) {
  const JobSpec& o = job.spec;
  std::string not_saved;
  if (o.saves_filter()) {
    not_saved = "the " + saved_file_word(o) + " " + o.filter_path + " was not updated";
  }
  if (!o.stats_path.empty()) {
    not_saved += std::string(not_saved.empty() ? "" : " and ") + "the statistics file " +
                 o.stats_path + " was not written";
  }
  return "the reader of standard output went away (a closed pipe, as with `| head`) before "
         "the job ended; " + not_saved + ", since the records after that point were never "
         "delivered. Let the reader take the whole output, or leave out " +
         job.name(JobOption::kFilter) + " and " + job.name(JobOption::kStats) +
         " when only the first records are wanted.";
}

}  // namespace gdedup::job
