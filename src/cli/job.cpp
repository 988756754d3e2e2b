#include "cli/job.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/backend_choice.h"
#include "cli/checkpoint_job.h"
#include "cli/checkpoint_options.h"
#include "cli/console.h"
#include "cli/file_locks.h"
#include "cli/growth_choice.h"
#include "cli/interrupt.h"
#include "cli/job_checks.h"
#include "cli/job_filter.h"
#include "cli/mpi_job.h"
#include "cli/numbers.h"
#include "cli/overfull.h"
#include "cli/preflight.h"
#include "cli/progress.h"
#include "cli/report.h"
#include "cli/sizing.h"
#include "cli/stats.h"
#include "cli/thread_split.h"
#include "gdedup/checkpoint.h"
#include "gdedup/error.h"
#include "gdedup/filter_file.h"
#include "gdedup/output_file.h"
#include "gdedup/paths.h"
#include "gdedup/pipeline.h"

namespace gdedup::cli {
namespace {

Checkpoint load_for_resume(const JobOptions& o, const SizingRequest& request,
                           InputFormat format, const std::optional<GrowthState>& requested) {
  Checkpoint ck = load_checkpoint(o.checkpoint.path);
  check_resume_growth(o, ck.state, requested);
  if (!ck.state.growth) check_resume_sizing(o, request, format, ck.filter.params());
  return ck;
}

BackendOptions backend_options(const JobOptions& o) {
  BackendOptions options;
  options.threads = split_threads(o.threads, o.filter_threads).filter;
  options.device = o.device;
  return options;
}

JobFilter fixed_filter(const JobOptions& o, const SizingRequest& request, InputFormat format) {
  refuse_existing_checkpoint(o);
  const Plan plan = plan_new_filter(request, o.inputs, format, o.record_separator(),
                                    o.filter_path);
  return JobFilter(Checkpoint{Filter::from_plan(plan), ResumeState{}, {}}, o.backend,
                   backend_options(o));
}

JobFilter growing_filter(const JobOptions& o, const SizingRequest& request, InputFormat format,
                         uint64_t max_memory) {
  refuse_existing_checkpoint(o);
  const GrowthRule rule = plan_growth(request, o.inputs, format, o.record_separator());
  JobFilter job(rule, o.backend, backend_options(o));
  LayeredFilter& filter = *job.growing();
  filter.set_max_bytes(growth_limit(o, filter.bytes(), filter.layer_count(), max_memory));
  Console::get().info(growth_summary(rule));
  return job;
}

// The filter of an existing file: it grows on (--no-grow holds it at its
// layers) or stays fixed as it was made.
JobFilter filter_from_file(const JobOptions& o, JobKind kind, const SizingRequest& request,
                           InputFormat format, uint64_t max_memory, FilterFile file) {
  if (kind != JobKind::kQuery) {
    warn_ignored_sizing(o, request, file.rules, file.layers[0].params(), format);
  }
  if (!file.rules.growth) {
    // A fixed file cannot grow past the cap, but it may start past it.
    const uint64_t bytes = file.layers[0].params().bytes();
    if (max_memory != 0 && bytes > max_memory) {
      throw UsageError("--max-memory " + o.max_memory + " is less than the " +
                       human_bytes(bytes) + " of the fixed filter " + o.filter_path +
                       "; raise it, or leave it out");
    }
    Console::get().info(filter_summary(file.layers[0], o.filter_path));
    return JobFilter(Checkpoint{std::move(file.layers[0]), ResumeState{}, {}}, o.backend,
                     backend_options(o));
  }
  JobFilter job(*file.rules.growth, std::move(file.layers), file.rules.keys_offered, o.backend,
                backend_options(o));
  LayeredFilter& filter = *job.growing();
  filter.set_max_bytes(growth_limit(o, filter.bytes(), filter.layer_count(), max_memory));
  Console::get().info(filter_summary(filter, o.filter_path));
  return job;
}

// The filter of a resumed job, fixed or growing as its checkpoint holds it,
// once the command is found to ask for the same.
JobFilter resumed_filter(const JobOptions& o, const SizingRequest& request, InputFormat format,
                         const std::optional<GrowthState>& requested) {
  JobFilter job(load_for_resume(o, request, format, requested), o.backend, backend_options(o));
  const std::string& path = o.checkpoint.path;
  const std::string summary = job.growing() ? filter_summary(*job.growing(), path)
                                            : filter_summary(*job.fixed(), path);
  Console::get().info("resuming from checkpoint " + path + " at record " +
                      group_digits(job.resume_state().records) + "; " + summary);
  return job;
}

// Appended to an error that struck after work began, so the user knows what
// the files now hold.
std::string aftermath(const JobOptions& o, JobKind kind) {
  // What the output holds the pipeline says itself: only it knows.
  std::string text;
  if (!o.filter_path.empty() && kind != JobKind::kQuery) {
    text += " The filter " + o.filter_path + " was not updated.";
  }
  if (o.checkpoint.enabled() && file_exists(o.checkpoint.path)) {
    text += " Once the cause is fixed, the same command plus --resume continues from the "
            "checkpoint " + o.checkpoint.path + ".";
  }
  return text;
}

}  // namespace

std::string unfinished_run(const JobOptions& o, JobKind kind, Mode mode, const std::string& why) {
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
  if (!o.filter_path.empty() && kind != JobKind::kQuery) {
    text += "; the filter " + o.filter_path + " was not updated";
  }
  if (!o.stats_path.empty()) text += "; " + o.stats_path + " was not written";
  if (kind != JobKind::kQuery) text += "; --checkpoint FILE makes a long job resumable";
  return text;
}

std::string closed_pipe_text(const JobOptions& o, bool saves_filter) {
  std::string not_saved;
  if (saves_filter) not_saved = "the filter " + o.filter_path + " was not updated";
  if (!o.stats_path.empty()) {
    not_saved += std::string(not_saved.empty() ? "" : " and ") + "the statistics file " +
                 o.stats_path + " was not written";
  }
  return "the reader of standard output went away (a closed pipe, as with `| head`) before "
         "the job ended; " + not_saved + ", since the records after that point were never "
         "delivered. Let the reader take the whole output, or leave out -f and --stats when "
         "only the first records are wanted.";
}

int run_job(const JobOptions& options, JobKind kind) {
  if (options.mpi) return run_mpi_job(options, kind);
  JobOptions o = options;
  Console& console = Console::get();
  console.set_quiet(o.quiet);
  const Mode mode = mode_for(o, kind);
  // A checkpointed run stops at a batch boundary with a checkpoint, even for
  // a signal that came during the checks below; any other ends at once.
  const std::atomic<bool>* stop = nullptr;
  if (o.checkpoint.enabled()) {
    stop = stop_flag();
  } else {
    end_on_signals(unfinished_run(o, kind, mode, ""));
  }
  const InputFormat format = parse_input_format(o.input_format);

  // Everything the user typed is checked before anything is read or created.
  const SizingRequest request = parse_sizing(o.sizing);
  const bool grows = growth_chosen(o, kind, request);
  const uint64_t max_memory =
      o.max_memory.empty() ? 0 : parse_bytes(o.max_memory, "--max-memory");
  const ProgressMode progress_mode = o.progress_mode();
  const uint64_t batch = batch_records(o.batch);
  const uint64_t max_record = max_record_bytes(o.max_record_length, format);
  // u64 records have no key options (refuse_ignored_options).
  const KeyOptions keys = format == InputFormat::kText ? parse_key_flags(o.keys) : KeyOptions{};
  ResolvedInputs inputs = resolve_inputs(o.inputs, o.input_list);
  o.inputs = std::move(inputs.paths);
  check_inputs(o.inputs);
  const bool saves_filter = !o.filter_path.empty() && kind != JobKind::kQuery;
  check_files(o, mode, saves_filter);
  // Held until the job ends; taken before any file is read or created, so
  // that a job waiting for the filter starts from the one saved before it.
  const FileLocks locks =
      lock_job_files(output_to_lock(o, mode),
                     o.checkpoint.enabled() ? o.checkpoint.path : "",
                     saves_filter ? o.filter_path : "");

  const bool filter_existed = !o.filter_path.empty() && file_exists(o.filter_path);
  const KeyRules key_rules = command_key_rules(format, keys, o.record_separator());
  // The rules the saved filter records: its own where it has them.
  KeyRules saved_rules = key_rules;
  FilterFileCheck filter_file_check = FilterFileCheck::kUnchanged;
  // Returned, never moved: a fixed filter's backend works on it in place.
  JobFilter job = [&]() -> JobFilter {
    if (o.checkpoint.resume) {
      filter_file_check = check_resume_files(o, saves_filter, true);
      // The file is still the one the run started from: its rules stand.
      if (filter_existed) {
        if (auto keys = read_filter_info(o.filter_path).rules.keys) saved_rules = *keys;
      }
      return resumed_filter(o, request, format,
                            requested_growth(o, request, format, grows, filter_existed,
                                             max_memory));
    }
    if (kind == JobKind::kQuery || filter_existed) {
      FilterFile file = load_filter_file(o.filter_path);
      check_key_rules(o, file.rules, file.version, key_rules);
      if (file.rules.keys) saved_rules = *file.rules.keys;
      return filter_from_file(o, kind, request, format, max_memory, std::move(file));
    }
    if (grows) return growing_filter(o, request, format, max_memory);
    return fixed_filter(o, request, format);
  }();
  console.info("backend " + job.description());

  ProgressLine progress(progress_wanted(progress_mode));
  PipelineOptions run;
  run.inputs = o.inputs;
  run.output = o.output;
  run.output_parts = o.output_parts;
  run.mode = mode;
  run.format = format;
  run.record_separator = o.record_separator();
  run.keys = keys;
  run.batch_records = batch;
  run.read_threads = split_threads(o.threads, o.filter_threads).read;
  run.piece_bytes = piece_bytes(o.piece_bytes);
  run.max_record_bytes = max_record;
  apply_checkpoint_options(o.checkpoint, run);
  run.resume = o.checkpoint.resume ? &job.resume_state() : nullptr;
  run.stop = stop;
  run.keep_checkpoint = saves_filter;
  run.saved_filter = saves_filter ? o.filter_path : "";
  bool began = false;  // a batch went through: the files may have changed
  LayeredFilter* growing = job.growing();
  run.on_progress = [&progress, &began, growing](const Progress& p) {
    began = true;
    progress.update(p, growing ? growing->layer_count() : 0);
  };
  const double planned_fpr = growing ? 0 : job.fixed()->counters().planned_fpr;
  run.on_over_capacity = [planned_fpr](uint64_t planned, double fpr_now) {
    Console::get().warn("more distinct keys than the " + group_digits(planned) +
                        " the filter was planned for; the false-positive rate is now about " +
                        format_rate(fpr_now) + " (planned " + format_rate(planned_fpr) +
                        ") and rising: give a larger --capacity next time");
  };

  JobReport report;
  report.mode = mode;
  report.checkpointing = o.checkpoint.enabled();
  report.inputs = o.inputs.size();
  report.inputs_skipped = inputs.skipped.size();
  if (run.resume != nullptr) {
    report.resumed_records = run.resume->records;
    report.resumed_bytes = run.resume->input_bytes;
  }
  try {
    report.stats = job.run(run);
  } catch (const UsageError&) {
    progress.finish();
    throw;
  } catch (const Error& e) {
    progress.finish();
    if (e.kind() == ErrorKind::broken_pipe) {
      // The reader of our output has gone (`gdedup dedup big | head`): done,
      // unless the job was to record what it saw.
      if (saves_filter || !o.stats_path.empty()) throw Error(closed_pipe_text(o, saves_filter));
      return 0;
    }
    // A resume refused before its first batch has changed nothing.
    if (run.resume != nullptr && !began) throw;
    throw Error(add_sentence(e.what(), aftermath(o, kind)), e);
  }
  progress.finish();
  if (report.stats.interrupted) {
    console.error(interrupted_line(report.stats, o.checkpoint.path));
    return kExitInterrupted;
  }

  job.sync_to_host();
  // A query adds no keys: its filter's state is not its doing.
  std::optional<std::string> overfull;
  if (kind != JobKind::kQuery) {
    std::vector<std::optional<Overfull>> layers;
    const uint64_t uncounted = uncounted_keys(report.stats, mode);
    if (growing) {
      for (size_t i = 0; i < growing->layer_count(); ++i) {
        layers.push_back(check_overfull(growing->layer(i), uncounted));
      }
    } else {
      layers.push_back(check_overfull(*job.fixed(), uncounted));
    }
    overfull = overfull_error(layers, filter_end(o, mode, growing != nullptr,
                                                 growing != nullptr && growing->growth_refused(),
                                                 filter_existed));
  }
  if (filter_file_check == FilterFileCheck::kCompareAtEnd) {
    require_own_filter_file(o, job, saved_rules);
  }
  // A filter far past its plan is not saved (overfull_error says so).
  if (saves_filter && !overfull) {
    if (growing) {
      save_filter(*growing, o.filter_path, saved_rules);
    } else {
      save_filter(*job.fixed(), o.filter_path, saved_rules);
    }
  }
  // Only now is the checkpoint no longer needed: see keep_checkpoint.
  if (saves_filter && o.checkpoint.enabled()) fs::unlink_file(o.checkpoint.path);
  report.filter = job.state();
  report.backend = job.backend_name();
  if (!o.stats_path.empty()) write_stats_file(o.stats_path, stats_json(report).str() + "\n");
  console.info(summary_line(report));
  // Everything is written; the exit status says it is not what was promised.
  if (overfull) {
    console.error(*overfull);
    return kExitOverfull;
  }
  return 0;
}

}  // namespace gdedup::cli
