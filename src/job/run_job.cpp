// run_job: a job in one process. Everything that can be checked is checked
// before any file is read or created; then the filter is set up, the
// pipeline runs, and the job finishes as every job does (job_steps.h).
#include "gdedup/job.h"

#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "gdedup/checkpoint.h"
#include "gdedup/error.h"
#include "gdedup/filter_file.h"
#include "gdedup/filter_report.h"
#include "gdedup/number_text.h"
#include "job/checkpoint_job.h"
#include "job/exact_job.h"
#include "job/growth_choice.h"
#include "job/job_checks.h"
#include "job/job_filter.h"
#include "job/job_steps.h"
#include "job/overfull.h"
#include "job/publication.h"
#include "job/sizing.h"
#include "job/thread_split.h"

namespace gdedup {
namespace {

using job::BackendChoice;
using job::Job;
using job::JobFilter;

BackendChoice backend_choice(const Job& j) {
  BackendChoice choice;
  choice.which = j.spec.backend;
  choice.options.threads = job::split_threads(j.spec.threads, j.spec.filter_threads).filter;
  choice.options.device = j.spec.device;
  choice.given = j.given(JobOption::kBackend);
  return choice;
}

JobFilter fixed_filter(const Job& j) {
  const Plan plan = job::plan_new_filter(j);
  return JobFilter(Checkpoint{Filter::from_plan(plan), ResumeState{}, {}}, backend_choice(j));
}

JobFilter growing_filter(const Job& j) {
  const GrowthRule rule = job::plan_growth(j);
  JobFilter made(rule, backend_choice(j));
  LayeredFilter& filter = *made.growing();
  filter.set_max_bytes(job::growth_limit(j, filter.bytes(), filter.layer_count()));
  j.events.info(growth_summary(rule));
  return made;
}

// The filter of an existing file: it grows on (no_grow holds it at its
// layers) or stays fixed as it was made.
JobFilter filter_from_file(const Job& j, FilterFile file) {
  const JobSpec& o = j.spec;
  if (o.kind != JobKind::kQuery) job::warn_ignored_sizing(j, file.rules, file.layers[0].params());
  if (!file.rules.growth) {
    j.events.info(filter_summary(file.layers[0], o.filter_path));
    return JobFilter(Checkpoint{std::move(file.layers[0]), ResumeState{}, {}}, backend_choice(j));
  }
  JobFilter made(*file.rules.growth, std::move(file.layers), file.rules.keys_offered,
                 backend_choice(j));
  LayeredFilter& filter = *made.growing();
  filter.set_max_bytes(job::growth_limit(j, filter.bytes(), filter.layer_count()));
  j.events.info(filter_summary(filter, o.filter_path));
  return made;
}

// The filter of a resumed job, fixed or growing as its checkpoint holds it,
// once the spec is found to ask for the same.
JobFilter resumed_filter(const Job& j, const std::optional<GrowthState>& requested) {
  Checkpoint ck = load_checkpoint(j.spec.checkpoint.path);
  job::check_resume_growth(j, ck.state, requested);
  if (!ck.state.growth) job::check_resume_sizing(j, ck.filter.params());
  JobFilter made(std::move(ck), backend_choice(j));
  const std::string& path = j.spec.checkpoint.path;
  const std::string summary = made.growing() ? filter_summary(*made.growing(), path)
                                             : filter_summary(*made.fixed(), path);
  j.events.info("resuming from checkpoint " + path + " at record " +
                group_digits(made.resume_state().records) + "; " + summary);
  return made;
}

// A job on a Bloom filter, fixed or growing (exact_job.h runs a set's).
JobResult run_filter_job(Job& j) {
  const JobSpec& o = j.spec;
  JobEvents& events = j.events;
  // Everything the spec asks is checked before anything is read or created.
  job::refuse_ignored_options(j);
  check_planned_rate(o.sizing, events);
  const bool grows = job::growth_chosen(j);
  const uint64_t skipped = job::resolve_and_check_inputs(j);
  job::check_files(j);
  // Held until the job ends; taken before any file is read or created, so
  // that a job waiting for the filter starts from the one saved before it.
  const FileLocks locks = job::lock_files(j);
  job::refuse_existing_checkpoint(j);

  const bool filter_existed = !o.filter_path.empty() && file_exists(o.filter_path);
  const KeyRules key_rules = job::job_key_rules(o);
  // The rules the saved filter records: its own where it has them.
  KeyRules saved_rules = key_rules;
  job::FilterFileCheck filter_file_check = job::FilterFileCheck::kUnchanged;
  // Returned, never moved: a fixed filter's backend works on it in place.
  JobFilter filter = [&]() -> JobFilter {
    if (o.checkpoint.resume) {
      filter_file_check = job::check_resume_files(j, o.saves_filter(), true);
      // The file is still the one the run started from: its rules stand.
      saved_rules = job::saved_key_rules(j, filter_existed);
      return resumed_filter(j, job::requested_growth(j, grows, filter_existed));
    }
    if (o.kind == JobKind::kQuery || filter_existed) {
      // A file past the cap is refused before it is loaded.
      job::check_filter_file_cap(j, read_filter_info(o.filter_path));
      FilterFile file = load_filter_file(o.filter_path);
      job::check_key_rules(j, file.rules, file.version, key_rules);
      if (file.rules.keys) saved_rules = *file.rules.keys;
      return filter_from_file(j, std::move(file));
    }
    if (grows) return growing_filter(j);
    return fixed_filter(j);
  }();
  events.info("backend " + filter.description());

  PipelineOptions run = job::pipeline_options(j);
  run.read_threads = job::split_threads(o.threads, o.filter_threads).read;
  run.resume = o.checkpoint.resume ? &filter.resume_state() : nullptr;
  run.stop = o.checkpoint.enabled() ? events.stop() : nullptr;
  bool began = false;  // a batch went through: the files may have changed
  LayeredFilter* growing = filter.growing();
  run.on_progress = [&events, &began, growing](const Progress& p) {
    began = true;
    events.progress(p, growing ? growing->layer_count() : 0);
  };
  const double planned_fpr = growing ? 0 : filter.fixed()->counters().planned_fpr;
  run.on_over_capacity = [&j, planned_fpr](uint64_t planned, double fpr_now) {
    j.events.warn("more distinct keys than the " + group_digits(planned) +
                  " the filter was planned for; the false-positive rate is now about " +
                  format_rate(fpr_now) + " (planned " + format_rate(planned_fpr) +
                  ") and rising: give a larger " + j.name(JobOption::kCapacity) + " next time");
  };

  JobResult result = job::start_result(j, skipped, run.resume);
  if (!job::run_stream(j, result, run.resume != nullptr, began,
                       [&] { return filter.run(run); })) {
    return result;
  }

  filter.sync_to_host();
  job::JobEnding ending;
  const uint64_t uncounted = job::uncounted_keys(result.stats, result.mode, j.spec.missing_key);
  if (growing) {
    for (size_t i = 0; i < growing->layer_count(); ++i) {
      ending.layers.push_back(check_overfull(growing->layer(i), uncounted));
    }
  } else {
    ending.layers.push_back(check_overfull(*filter.fixed(), uncounted));
  }
  ending.growing = growing != nullptr;
  ending.growth_refused = growing != nullptr && growing->growth_refused();
  ending.filter_existed = filter_existed;
  if (filter_file_check == job::FilterFileCheck::kCompareAtEnd) {
    job::require_own_filter_file(j, filter, saved_rules);
  }
  ending.save = [&] {
    if (growing) {
      save_filter(*growing, o.filter_path, saved_rules);
    } else {
      save_filter(*filter.fixed(), o.filter_path, saved_rules);
    }
  };
  result.filter = filter.state();
  result.backend = filter.backend_name();
  job::finish_job(j, ending, result);
  return result;
}

}  // namespace

JobResult run_job(const JobSpec& spec, JobEvents& events) {
  Job j(spec, events);
  try {
    return spec.exact ? job::run_exact_job(j) : run_filter_job(j);
  } catch (const std::system_error& e) {
    // A thread of the front end, the output or a checkpoint (std::thread),
    // as a ThreadPool's: an Error the front ends tell and advise on.
    if (!is_thread_refusal(e)) throw;
    throw thread_refused("the job's threads", e);
  } catch (...) {
    // Once the output has taken its place, a failure says what it holds.
    std::rethrow_exception(job::with_what_is_published(j, std::current_exception()));
  }
}

}  // namespace gdedup
