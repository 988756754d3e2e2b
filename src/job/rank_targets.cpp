#include "job/rank_targets.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gdedup/backend_registry.h"
#include "gdedup/error.h"
#include "gdedup/filter_file.h"
#include "gdedup/frontend/filter_report.h"
#include "gdedup/frontend/number_text.h"
#include "gdedup/live_set.h"
#include "gdedup/set_file.h"
#include "job/checkpoint_job.h"
#include "job/growth_choice.h"
#include "job/job_checks.h"
#include "job/job_steps.h"
#include "job/open_target.h"
#include "job/sizing.h"
#include "job/thread_split.h"

namespace gdedup::job {
namespace {

std::string on_ranks(const mpi::RankInfo& me) {
  return " on " + std::to_string(me.ranks) + (me.ranks == 1 ? " rank" : " ranks");
}

// What a rank past the cap adds to its error: the cap is each rank's.
std::string cap_advice(const Job& j) {
  return "Under " + j.name(JobOption::kMpi) + ", " + j.name(JobOption::kMaxMemory) +
         " caps each rank's part of the set: raise it, or run more ranks";
}

// check_set_cap of a rank's part, with cap_advice.
void check_part_cap(const Job& j, uint64_t bytes, const std::string& what) {
  try {
    check_set_cap(j, bytes, what);
  } catch (const Error& e) {
    throw Error(add_sentence(e.what(), cap_advice(j)), e);
  }
}

// A set file (a set checkpoint where `checkpoint`) past the cap is refused
// from its header, on every rank alike, before any rank reads a key, as one
// process refuses it (exact_target.cpp).
void check_part_file_cap(const Job& j, const std::string& path, bool checkpoint) {
  check_part_cap(j, mpi::ShardedSet::part_bytes_for(read_set_info(path, checkpoint).keys),
                 std::string("a rank's part of the set of ") + (checkpoint ? "checkpoint " : "") +
                     path);
}

// `failed`, its rank's error a set_full one with cap_advice and what the
// files hold added (as one process tells it); any other failure as it is.
mpi::JobFailed with_cap_advice(const Job& j, const mpi::JobFailed& failed) {
  mpi::JobFailed out = failed;
  if (!failed.failure) return out;
  try {
    std::rethrow_exception(failed.failure);
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::set_full) {
      const std::string text = add_sentence(e.what(), cap_advice(j));
      out.failure = std::make_exception_ptr(Error(add_sentence(text, aftermath(j)), e));
    }
  } catch (...) {  // not the set's: as it is
  }
  return out;
}

// What ranks share of their targets: the job, the rank, the file and the
// state a resume continues from. Progress shows no layers on ranks.
class RankTarget : public JobTarget {
 public:
  RankTarget(const Job& job, const mpi::RankInfo& me, TargetFile file, ResumeState resume)
      : job_(job), me_(me), file_(std::move(file)), resume_(std::move(resume)) {}
  const std::string& description() const override { return description_; }
  const ResumeState* resume_state() const override {
    return job_.spec.checkpoint.resume ? &resume_ : nullptr;
  }
  size_t growing_layers() const override { return 0; }
  void prepare_run(PipelineOptions&) override {}

 protected:
  const Job& job_;
  mpi::RankInfo me_;
  TargetFile file_;
  ResumeState resume_;
  std::string description_;  // rank 0's backend, once the run chose it
};

class RankFilterTarget final : public RankTarget {
 public:
  RankFilterTarget(const Job& job, const mpi::RankInfo& me, TargetFile file,
                   mpi::ShardedFilter filter, ResumeState resume)
      : RankTarget(job, me, std::move(file), std::move(resume)), filter_(std::move(filter)) {}

  PipelineStats run(const PipelineOptions& options) override {
    const Job& j = job_;
    const JobSpec& o = j.spec;
    // Each rank chooses its own backend (auto: its GPU if it has one, else
    // the CPU), on the GPU its local rank numbers; the answers are the same.
    BackendOptions backend_options;
    backend_options.threads = job_threads(o, true).filter;
    backend_options.device = static_cast<int>(me_.local_rank);
    const BackendMaker make_backend = [&](Filter& part) {
      MadeBackend made;
      try {
        made = choose_backend(o.backend, backend_options, part, j.given(JobOption::kBackend));
      } catch (const UsageError&) {
        throw;
      } catch (const Error& e) {
        if (o.backend != "gpu") throw;
        throw Error(std::string(e.what()) + " (under " + j.name(JobOption::kMpi) + " a rank "
                    "runs on the GPU its rank on its machine numbers, and this rank is number " +
                    std::to_string(me_.local_rank) + " on " + me_.host + ": start at most one "
                    "rank per GPU on each machine)", e);
      }
      description_ = made.description;
      j.events.info("backend of rank 0: " + description_);
      return std::move(made.backend);
    };
    return mpi::run_sharded_pipeline(options, filter_, make_backend);
  }

  // Every layer's counters and set bits, summed over the ranks: every rank
  // finds the same.
  TargetEnd end_run(uint64_t uncounted) override {
    TargetEnd end;
    layers_.clear();
    for (size_t i = 0; i < filter_.layer_count(); ++i) {
      const FilterParams& params = filter_.layer_params(i);
      const FilterCounters counters = filter_.counters(i);
      const uint64_t set = filter_.count_set_bits(i);
      layers_.push_back(summarize(params, counters, set));
      end.layers.push_back(check_overfull(params, counters, set, uncounted));
    }
    end.growing = filter_.growth().has_value();
    end.growth_refused = filter_.growth_refused();
    end.file_existed = file_.existed;
    return end;
  }

  void report(JobResult& result) const override {
    result.filter = combine(layers_);
    result.backend = description_.substr(0, description_.find(' ')) + on_ranks(me_);
  }

  void save() override { filter_.save(job_.spec.filter_path, file_.rules); }

 private:
  mpi::ShardedFilter filter_;
  std::vector<FilterSummary> layers_;  // as end_run found them
};

class RankSetTarget final : public RankTarget {
 public:
  RankSetTarget(const Job& job, const mpi::RankInfo& me, TargetFile file, mpi::ShardedSet set,
                ResumeState resume)
      : RankTarget(job, me, std::move(file), std::move(resume)), set_(std::move(set)) {
    check_part_cap(job, set_.part().bytes(), "a rank's part of the set");
  }

  PipelineStats run(const PipelineOptions& options) override {
    try {
      return mpi::run_sharded_pipeline(options, set_, file_.rules);
    } catch (const mpi::JobFailed& e) {
      throw with_cap_advice(job_, e);
    }
  }

  TargetEnd end_run(uint64_t) override {
    totals_ = set_.totals();
    TargetEnd end;
    end.file_existed = file_.existed;
    return end;
  }

  void report(JobResult& result) const override {
    result.set = SetSummary{totals_.keys, totals_.bytes, totals_.load,
                            KeySet::collision_chance(totals_.keys)};
    result.backend = "cpu exact set" + on_ranks(me_);
  }

  void save() override { set_.save(job_.spec.filter_path, file_.rules); }

 private:
  mpi::ShardedSet set_;
  mpi::ShardedSet::Totals totals_;  // as end_run found them
};

std::unique_ptr<JobTarget> open_rank_filter(const Job& j, const mpi::RankInfo& me,
                                            Opening how, TargetFile file) {
  const JobSpec& o = j.spec;
  const bool grows = growth_chosen(j);
  ResumeState resume;
  if (how == Opening::kResume) {
    // The filter is the checkpoint's; an existing filter file keeps its
    // own key rules, as when the run began.
    check_resume_files(j, o.saves_filter() && me.rank == 0, false);
    file.rules = saved_key_rules(j, file.existed);
    mpi::ShardedFilter filter = mpi::ShardedFilter::load_checkpoint(o.checkpoint.path, resume);
    check_resume_growth(j, resume, requested_growth(j, grows, file.existed));
    if (!resume.growth) check_resume_sizing(j, resume.params);
    j.events.info("resuming from checkpoint " + o.checkpoint.path + " at record " +
                  group_digits(resume.records));
    return std::make_unique<RankFilterTarget>(j, me, std::move(file), std::move(filter),
                                              std::move(resume));
  }
  if (how == Opening::kFile) {
    const FilterFileInfo info = read_filter_info(o.filter_path);
    check_filter_file_cap(j, info);
    check_key_rules(j, info.rules, info.version, file.rules);
    if (info.rules.keys) file.rules = *info.rules.keys;
    if (o.kind != JobKind::kQuery && me.rank == 0) {
      warn_ignored_sizing(j, info.rules, info.params[0]);
    }
    mpi::ShardedFilter filter = mpi::ShardedFilter::load(o.filter_path);
    if (filter.growth()) {
      filter.set_max_bytes(growth_limit(j, filter.bytes(), filter.layer_count()));
    }
    return std::make_unique<RankFilterTarget>(j, me, std::move(file), std::move(filter),
                                              std::move(resume));
  }
  if (grows) {
    const GrowthRule rule = plan_growth(j);
    j.events.info(growth_summary(rule) +
                  (o.filter_path.empty() ? "" : ", saved to " + o.filter_path));
    mpi::ShardedFilter filter(rule, kDefaultSeed, 0);
    filter.set_max_bytes(growth_limit(j, filter.bytes(), 1));
    return std::make_unique<RankFilterTarget>(j, me, std::move(file), std::move(filter),
                                              std::move(resume));
  }
  const Plan plan = plan_new_filter(j);
  FilterCounters counters;
  counters.planned_capacity = plan.capacity;
  counters.planned_fpr = plan.expected_fpr;
  mpi::ShardedFilter filter(FilterParams{plan.num_blocks, plan.layout, kDefaultSeed}, counters);
  return std::make_unique<RankFilterTarget>(j, me, std::move(file), std::move(filter),
                                            std::move(resume));
}

std::unique_ptr<JobTarget> open_rank_set(const Job& j, const mpi::RankInfo& me, Opening how,
                                         TargetFile file) {
  const JobSpec& o = j.spec;
  // Each rank's part: the cap is each part's (docs/SCALE-OUT.md, "Exact mode").
  const KeySetOptions options{job_threads(o, true).filter, o.max_memory};
  ResumeState resume;
  if (how == Opening::kResume) {
    // The set is the checkpoint's, whichever number of ranks (or one
    // process) wrote it; each rank keeps its range.
    require_checkpoint(j);
    check_part_file_cap(j, o.checkpoint.path, true);
    mpi::ShardedSet set =
        mpi::ShardedSet::load_checkpoint(o.checkpoint.path, options, file.rules, resume);
    check_resume_files(j, resume, o.saves_filter() && me.rank == 0, false);
    j.events.info("resuming from checkpoint " + o.checkpoint.path + " at record " +
                  group_digits(resume.records));
    return std::make_unique<RankSetTarget>(j, me, std::move(file), std::move(set),
                                           std::move(resume));
  }
  if (how == Opening::kFile) {
    check_part_file_cap(j, o.filter_path, false);
    KeyRules file_rules;
    mpi::ShardedSet set = mpi::ShardedSet::load(o.filter_path, options, file_rules);
    FilterRules rules;
    rules.keys = file_rules;
    check_key_rules(j, rules, kFilterFileVersion, file.rules);
    file.rules = file_rules;
    return std::make_unique<RankSetTarget>(j, me, std::move(file), std::move(set),
                                           std::move(resume));
  }
  // A capacity sizes the set from the start, each rank's part for its
  // share; without one the parts start small and double as keys come.
  mpi::ShardedSet set(o.sizing.capacity.value_or(0), options, key_set_size_names(j.events));
  return std::make_unique<RankSetTarget>(j, me, std::move(file), std::move(set),
                                         std::move(resume));
}

}  // namespace

std::unique_ptr<JobTarget> open_rank_target(const Job& j, const mpi::RankInfo& me) {
  TargetFile file;
  const Opening how = how_to_open(j, file);
  return j.spec.exact ? open_rank_set(j, me, how, std::move(file))
                      : open_rank_filter(j, me, how, std::move(file));
}

}  // namespace gdedup::job
