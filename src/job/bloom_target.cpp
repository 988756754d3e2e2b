// The target of a job on a Bloom filter (gdedup/job_target.h): fixed or
// growing, new, from a filter file or from a checkpoint, its backends
// chosen by the registry, held by a LiveFilter (gdedup/live_filter.h); and
// the new filter that a program fills (new_live_filter), checked as a
// job's.
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "gdedup/checkpoint.h"
#include "gdedup/filter_file.h"
#include "gdedup/frontend/filter_report.h"
#include "gdedup/frontend/number_text.h"
#include "gdedup/live_filter.h"
#include "job/growth_choice.h"
#include "job/job_checks.h"
#include "job/job_steps.h"
#include "job/open_target.h"
#include "job/overfull.h"
#include "job/sizing.h"
#include "job/thread_split.h"

namespace gdedup::job {
namespace {

BackendChoice backend_choice(const Job& j) {
  BackendChoice choice;
  choice.which = j.spec.backend;
  choice.options.threads = job_threads(j.spec, false).filter;
  choice.options.device = j.spec.device;
  choice.given = j.given(JobOption::kBackend);
  return choice;
}

// A new growing filter, capped as the job's options cap it (a job's, or
// new_live_filter's).
LiveFilter growing_filter(const Job& j, const GrowthRule& rule, const BackendChoice& choice) {
  LiveFilter made(rule, choice);
  made.set_max_bytes(growth_limit(j, made.bytes(), made.layer_count()));
  return made;
}

LiveFilter fixed_filter(const Job& j) {
  return LiveFilter(Filter::from_plan(plan_new_filter(j)), backend_choice(j));
}

LiveFilter new_growing_filter(const Job& j) {
  const GrowthRule rule = plan_growth(j);
  LiveFilter made = growing_filter(j, rule, backend_choice(j));
  j.events.info(growth_summary(rule));
  return made;
}

// The filter of an existing file: it grows on (no_grow holds it at its
// layers) or stays fixed as it was made.
LiveFilter filter_from_file(const Job& j, FilterFile file) {
  const JobSpec& o = j.spec;
  if (o.kind != JobKind::kQuery) warn_ignored_sizing(j, file.rules, file.layers[0].params());
  if (!file.rules.growth) j.events.info(filter_summary(file.layers[0], o.filter_path));
  LiveFilter made(std::move(file), backend_choice(j));
  if (made.growing()) {
    made.set_max_bytes(growth_limit(j, made.bytes(), made.layer_count()));
    j.events.info(filter_summary(*made.layered(), o.filter_path));
  }
  return made;
}

// The filter of a resumed job, fixed or growing as its checkpoint holds it,
// once the spec is found to ask for the same.
LiveFilter resumed_filter(const Job& j, const std::optional<GrowthState>& requested) {
  Checkpoint ck = load_checkpoint(j.spec.checkpoint.path);
  check_resume_growth(j, ck.state, requested);
  if (!ck.state.growth) check_resume_sizing(j, ck.filter.params());
  LiveFilter made(std::move(ck), backend_choice(j));
  const std::string& path = j.spec.checkpoint.path;
  const std::string summary = made.growing() ? filter_summary(*made.layered(), path)
                                             : filter_summary(made.layer(0), path);
  j.events.info("resuming from checkpoint " + path + " at record " +
                group_digits(made.resume_state()->records) + "; " + summary);
  return made;
}

class FilterTarget final : public JobTarget {
 public:
  FilterTarget(const Job& job, TargetFile file, LiveFilter filter)
      : job_(job), file_(std::move(file)), filter_(std::move(filter)) {}

  const std::string& description() const override { return filter_.description(); }
  const ResumeState* resume_state() const override {
    return filter_.resume_state();
  }
  size_t growing_layers() const override {
    return filter_.growing() ? filter_.layer_count() : 0;
  }

  void prepare_run(PipelineOptions& options) override {
    const double planned_fpr = filter_.growing() ? 0 : filter_.layer(0).counters().planned_fpr;
    const Job& j = job_;
    options.on_over_capacity = [&j, planned_fpr](uint64_t planned, double fpr_now) {
      j.events.warn("more distinct keys than the " + group_digits(planned) +
                    " the filter was planned for; the false-positive rate is now about " +
                    format_rate(fpr_now) + " (planned " + format_rate(planned_fpr) +
                    ") and rising: give a larger " + j.name(JobOption::kCapacity) + " next time");
    };
  }

  PipelineStats run(const PipelineOptions& options) override { return filter_.run(options); }

  TargetEnd end_run(uint64_t uncounted) override {
    filter_.sync_to_host();
    TargetEnd end;
    for (size_t i = 0; i < filter_.layer_count(); ++i) {
      end.layers.push_back(check_overfull(filter_.layer(i), uncounted));
    }
    end.growing = filter_.growing();
    end.growth_refused = filter_.growth_refused();
    end.file_existed = file_.existed;
    if (file_.check == FilterFileCheck::kCompareAtEnd) {
      require_own_filter_file(job_, filter_, file_.rules);
    }
    return end;
  }

  void report(JobResult& result) const override {
    result.filter = filter_.summary();
    result.backend = filter_.backend_name();
  }

  void save() override { filter_.save(job_.spec.filter_path, file_.rules); }

 private:
  const Job& job_;
  TargetFile file_;
  LiveFilter filter_;
};

}  // namespace

std::unique_ptr<JobTarget> open_filter_target(const Job& j, Opening how, TargetFile file) {
  const JobSpec& o = j.spec;
  const bool grows = growth_chosen(j);
  if (how == Opening::kResume) {
    file.check = check_resume_files(j, o.saves_filter(), true);
    // The file is still the one the run started from: its rules stand.
    file.rules = saved_key_rules(j, file.existed);
    const std::optional<GrowthState> requested = requested_growth(j, grows, file.existed);
    return std::make_unique<FilterTarget>(j, std::move(file), resumed_filter(j, requested));
  }
  if (how == Opening::kFile) {
    // A file past the cap is refused before it is loaded.
    check_filter_file_cap(j, read_filter_info(o.filter_path));
    FilterFile saved = load_filter_file(o.filter_path);
    check_key_rules(j, saved.rules, saved.version, file.rules);
    if (saved.rules.keys) file.rules = *saved.rules.keys;
    return std::make_unique<FilterTarget>(j, std::move(file),
                                          filter_from_file(j, std::move(saved)));
  }
  return std::make_unique<FilterTarget>(j, std::move(file),
                                        grows ? new_growing_filter(j) : fixed_filter(j));
}

}  // namespace gdedup::job

namespace gdedup {

LiveFilter new_live_filter(const JobSpec& spec, const BackendChoice& choice, JobEvents& events) {
  check_job_spec(spec, events);
  const job::Job j(spec, events);
  if (job::growth_chosen(j)) return job::growing_filter(j, growth_rule(spec.sizing), choice);
  return LiveFilter(Filter::from_plan(plan_fixed_filter(spec.sizing, events)), choice);
}

}  // namespace gdedup
