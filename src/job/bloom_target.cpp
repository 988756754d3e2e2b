// The target of a job on a Bloom filter (gdedup/job_target.h): fixed or
// growing, new, from a filter file or from a checkpoint, its backends
// chosen by the registry (job_filter.h).
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "gdedup/checkpoint.h"
#include "gdedup/filter_file.h"
#include "gdedup/frontend/filter_report.h"
#include "gdedup/frontend/number_text.h"
#include "job/growth_choice.h"
#include "job/job_checks.h"
#include "job/job_filter.h"
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

JobFilter fixed_filter(const Job& j) {
  const Plan plan = plan_new_filter(j);
  return JobFilter(Checkpoint{Filter::from_plan(plan), ResumeState{}, {}}, backend_choice(j));
}

JobFilter growing_filter(const Job& j) {
  const GrowthRule rule = plan_growth(j);
  JobFilter made(rule, backend_choice(j));
  LayeredFilter& filter = *made.growing();
  filter.set_max_bytes(growth_limit(j, filter.bytes(), filter.layer_count()));
  j.events.info(growth_summary(rule));
  return made;
}

// The filter of an existing file: it grows on (no_grow holds it at its
// layers) or stays fixed as it was made.
JobFilter filter_from_file(const Job& j, FilterFile file) {
  const JobSpec& o = j.spec;
  if (o.kind != JobKind::kQuery) warn_ignored_sizing(j, file.rules, file.layers[0].params());
  if (!file.rules.growth) {
    j.events.info(filter_summary(file.layers[0], o.filter_path));
    return JobFilter(Checkpoint{std::move(file.layers[0]), ResumeState{}, {}}, backend_choice(j));
  }
  JobFilter made(*file.rules.growth, std::move(file.layers), file.rules.keys_offered,
                 backend_choice(j));
  LayeredFilter& filter = *made.growing();
  filter.set_max_bytes(growth_limit(j, filter.bytes(), filter.layer_count()));
  j.events.info(filter_summary(filter, o.filter_path));
  return made;
}

// The filter of a resumed job, fixed or growing as its checkpoint holds it,
// once the spec is found to ask for the same.
JobFilter resumed_filter(const Job& j, const std::optional<GrowthState>& requested) {
  Checkpoint ck = load_checkpoint(j.spec.checkpoint.path);
  check_resume_growth(j, ck.state, requested);
  if (!ck.state.growth) check_resume_sizing(j, ck.filter.params());
  JobFilter made(std::move(ck), backend_choice(j));
  const std::string& path = j.spec.checkpoint.path;
  const std::string summary = made.growing() ? filter_summary(*made.growing(), path)
                                             : filter_summary(*made.fixed(), path);
  j.events.info("resuming from checkpoint " + path + " at record " +
                group_digits(made.resume_state().records) + "; " + summary);
  return made;
}

class FilterTarget final : public JobTarget {
 public:
  // The filter is made in place by `make`, never moved: a fixed filter's
  // backend works on it where it is.
  FilterTarget(const Job& job, TargetFile file, const std::function<JobFilter()>& make)
      : job_(job), file_(std::move(file)), filter_(make()) {}

  const std::string& description() const override { return filter_.description(); }
  const ResumeState* resume_state() const override {
    return job_.spec.checkpoint.resume ? &filter_.resume_state() : nullptr;
  }
  size_t growing_layers() const override {
    return filter_.growing() ? filter_.growing()->layer_count() : 0;
  }

  void prepare_run(PipelineOptions& options) override {
    const double planned_fpr = filter_.growing() ? 0 : filter_.fixed()->counters().planned_fpr;
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
    const LayeredFilter* growing = filter_.growing();
    if (growing) {
      for (size_t i = 0; i < growing->layer_count(); ++i) {
        end.layers.push_back(check_overfull(growing->layer(i), uncounted));
      }
    } else {
      end.layers.push_back(check_overfull(*filter_.fixed(), uncounted));
    }
    end.growing = growing != nullptr;
    end.growth_refused = growing != nullptr && growing->growth_refused();
    end.file_existed = file_.existed;
    if (file_.check == FilterFileCheck::kCompareAtEnd) {
      require_own_filter_file(job_, filter_, file_.rules);
    }
    return end;
  }

  void report(JobResult& result) const override {
    result.filter = filter_.state();
    result.backend = filter_.backend_name();
  }

  void save() override {
    if (filter_.growing()) {
      save_filter(*filter_.growing(), job_.spec.filter_path, file_.rules);
    } else {
      save_filter(*filter_.fixed(), job_.spec.filter_path, file_.rules);
    }
  }

 private:
  const Job& job_;
  TargetFile file_;
  JobFilter filter_;
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
    return std::make_unique<FilterTarget>(j, std::move(file),
                                          [&] { return resumed_filter(j, requested); });
  }
  if (how == Opening::kFile) {
    // A file past the cap is refused before it is loaded.
    check_filter_file_cap(j, read_filter_info(o.filter_path));
    FilterFile saved = load_filter_file(o.filter_path);
    check_key_rules(j, saved.rules, saved.version, file.rules);
    if (saved.rules.keys) file.rules = *saved.rules.keys;
    return std::make_unique<FilterTarget>(
        j, std::move(file), [&] { return filter_from_file(j, std::move(saved)); });
  }
  return std::make_unique<FilterTarget>(
      j, std::move(file), [&] { return grows ? growing_filter(j) : fixed_filter(j); });
}

}  // namespace gdedup::job
