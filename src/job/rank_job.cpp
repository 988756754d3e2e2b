// RankJob: a job as one rank of an MPI job runs it, on the steps every job
// shares (job_steps.h); the filter is an mpi::ShardedFilter, or in exact
// mode the set an mpi::ShardedSet.
#include "gdedup/rank_job.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gdedup/backend_registry.h"
#include "gdedup/error.h"
#include "gdedup/filter_file.h"
#include "gdedup/filter_report.h"
#include "gdedup/number_text.h"
#include "gdedup/set_file.h"
#include "job/checkpoint_job.h"
#include "job/growth_choice.h"
#include "job/job_checks.h"
#include "job/job_steps.h"
#include "job/overfull.h"
#include "job/publication.h"
#include "job/sizing.h"
#include "job/thread_split.h"

namespace gdedup {

struct RankJob::State {
  State(const JobSpec& s, JobEvents& e, const mpi::RankInfo& m) : spec(s), job(spec, e), me(m) {}
  JobSpec spec;  // a copy: the job's steps keep a reference
  job::Job job;
  mpi::RankInfo me;
  uint64_t inputs_skipped = 0;
  std::optional<mpi::ShardedFilter> filter;
  std::optional<mpi::ShardedSet> set;  // exact mode's, instead of the filter
  ResumeState resume;    // when resuming: the checkpoint's
  KeyRules saved_rules;  // what the saved filter or set records
  bool filter_existed = false;
  FileLocks locks;  // rank 0's
};

namespace {

// What one process would accept but the ranks cannot do yet: refused by
// name, never ignored.
void refuse_unsupported(const job::Job& j) {
  if (j.spec.threads > 1) {
    throw UsageError(j.name(JobOption::kThreads) + " is not supported under " +
                     j.name(JobOption::kMpi) + " yet; each rank reads with one thread: run "
                     "more ranks instead (" + j.name(JobOption::kFilterThreads) + " sets the "
                     "threads that run a rank's blocks on its CPU)");
  }
}

// What exact mode refuses in one process, and on ranks the GPU (a rank's
// part of the set is held on its CPU).
void refuse_for_exact_ranks(const job::Job& j) {
  job::refuse_for_exact(j);
  if (j.spec.backend == "gpu") {
    throw UsageError(j.given(JobOption::kBackend) + " cannot run " + j.name(JobOption::kExact) +
                     " under " + j.name(JobOption::kMpi) + " yet: each rank holds its part of "
                     "the set on its CPU; drop " + j.name(JobOption::kBackend) +
                     ", or run the job in one process");
  }
}

// What a rank past --max-memory adds to its error: the cap is each rank's.
std::string cap_advice(const job::Job& j) {
  return "Under " + j.name(JobOption::kMpi) + ", " + j.name(JobOption::kMaxMemory) +
         " caps each rank's part of the set: raise it, or run more ranks";
}

// job::check_set_cap of a rank's part, with cap_advice.
void check_part_cap(const job::Job& j, uint64_t bytes, const std::string& what) {
  try {
    job::check_set_cap(j, bytes, what);
  } catch (const Error& e) {
    throw Error(add_sentence(e.what(), cap_advice(j)), e);
  }
}

// A set file (a set checkpoint where `checkpoint`) past the cap is refused
// from its header, on every rank alike, before any rank reads a key, as one
// process refuses it (exact_target.cpp).
void check_part_file_cap(const job::Job& j, const std::string& path, bool checkpoint) {
  check_part_cap(j, mpi::ShardedSet::part_bytes_for(read_set_info(path, checkpoint).keys),
                 std::string("a rank's part of the set of ") + (checkpoint ? "checkpoint " : "") +
                     path);
}

// `failed`, its rank's error a set_full one with cap_advice and what the
// files hold added (as one process tells it); any other failure as it is.
mpi::JobFailed with_cap_advice(const job::Job& j, const mpi::JobFailed& failed) {
  mpi::JobFailed out = failed;
  if (!failed.failure) return out;
  try {
    std::rethrow_exception(failed.failure);
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::set_full) {
      const std::string text = add_sentence(e.what(), cap_advice(j));
      out.failure = std::make_exception_ptr(Error(add_sentence(text, job::aftermath(j)), e));
    }
  } catch (...) {  // not the set's: as it is
  }
  return out;
}

// `result` of a job a signal stopped: the checkpoint, which every rank
// took part in, is written.
JobResult interrupted(const job::Job& j, JobResult& result) {
  result.status = JobStatus::kInterrupted;
  result.message = job::interrupted_line(j, result.stats);
  return result;
}

}  // namespace

RankJob::RankJob(const JobSpec& spec, JobEvents& events, const mpi::RankInfo& me)
    : state_(std::make_unique<State>(spec, events, me)) {
  job::refuse_ignored_options(state_->job);
  if (spec.exact) refuse_for_exact_ranks(state_->job);
  if (spec.format == InputFormat::kText && spec.keys.key.structured()) {
    throw UsageError(events.with(JobOption::kKey, spec.keys.key_text()) + " does not run on "
                     "the ranks of an MPI job yet: its records without the key are not "
                     "told apart there");
  }
  check_planned_rate(spec.sizing, events);
  state_->inputs_skipped = job::resolve_and_check_inputs(state_->job);
}

RankJob::~RankJob() = default;

void RankJob::check_same_files() {
  const JobSpec& o = state_->spec;
  std::vector<std::pair<std::string, std::string>> job_files;
  if (!o.filter_path.empty()) {
    job_files.emplace_back(o.exact ? "set file" : "filter file", o.filter_path);
  }
  if (o.checkpoint.resume) job_files.emplace_back("checkpoint", o.checkpoint.path);
  mpi::check_same_inputs(state_->job.inputs, job_files);
}

void RankJob::prepare() {
  State& s = *state_;
  const job::Job& j = s.job;
  const JobSpec& o = s.spec;
  s.filter_existed = !o.filter_path.empty() && file_exists(o.filter_path);
  refuse_unsupported(j);
  if (o.exact) {
    prepare_set();
    return;
  }
  const bool grows = job::growth_chosen(j);
  job::check_files(j);
  if (s.me.rank == 0) s.locks = job::lock_files(j);
  job::refuse_existing_checkpoint(j);
  const KeyRules key_rules = job::job_key_rules(o);
  s.saved_rules = key_rules;
  if (o.checkpoint.resume) {
    // The filter is the checkpoint's; an existing filter file keeps its
    // own key rules, as when the run began.
    // Rank 0 saves the filter file; no rank can compare it with its part.
    job::check_resume_files(j, o.saves_filter() && s.me.rank == 0, false);
    s.saved_rules = job::saved_key_rules(j, s.filter_existed);
    s.filter.emplace(mpi::ShardedFilter::load_checkpoint(o.checkpoint.path, s.resume));
    job::check_resume_growth(j, s.resume, job::requested_growth(j, grows, s.filter_existed));
    if (!s.resume.growth) job::check_resume_sizing(j, s.resume.params);
    j.events.info("resuming from checkpoint " + o.checkpoint.path + " at record " +
                  group_digits(s.resume.records));
    return;
  }
  if (o.kind == JobKind::kQuery || s.filter_existed) {
    const FilterFileInfo info = read_filter_info(o.filter_path);
    job::check_filter_file_cap(j, info);
    job::check_key_rules(j, info.rules, info.version, key_rules);
    if (info.rules.keys) s.saved_rules = *info.rules.keys;
    if (o.kind != JobKind::kQuery && s.me.rank == 0) {
      job::warn_ignored_sizing(j, info.rules, info.params[0]);
    }
    s.filter.emplace(mpi::ShardedFilter::load(o.filter_path));
    mpi::ShardedFilter& filter = *s.filter;
    if (filter.growth()) {
      filter.set_max_bytes(job::growth_limit(j, filter.bytes(), filter.layer_count()));
    }
  } else if (grows) {
    const GrowthRule rule = job::plan_growth(j);
    j.events.info(growth_summary(rule) +
                  (o.filter_path.empty() ? "" : ", saved to " + o.filter_path));
    s.filter.emplace(rule, kDefaultSeed, 0);
    s.filter->set_max_bytes(job::growth_limit(j, s.filter->bytes(), 1));
  } else {
    const Plan plan = job::plan_new_filter(j);
    FilterCounters counters;
    counters.planned_capacity = plan.capacity;
    counters.planned_fpr = plan.expected_fpr;
    s.filter.emplace(FilterParams{plan.num_blocks, plan.layout, kDefaultSeed}, counters);
  }
}

void RankJob::prepare_set() {
  State& s = *state_;
  const job::Job& j = s.job;
  const JobSpec& o = s.spec;
  job::check_files(j);
  if (s.me.rank == 0) s.locks = job::lock_files(j);
  const KeyRules key_rules = job::job_key_rules(o);
  s.saved_rules = key_rules;
  // Each rank's part: --max-memory caps it (docs/SCALE-OUT.md, "Exact mode").
  const KeySetOptions options{job::job_threads(o, true).filter, o.max_memory};
  job::refuse_existing_checkpoint(j);
  if (o.checkpoint.resume) {
    // The set is the checkpoint's, whichever number of ranks (or one
    // process) wrote it; each rank keeps its range. Rank 0 saves the set
    // file; no rank can compare it with its part.
    job::require_checkpoint(j);
    check_part_file_cap(j, o.checkpoint.path, true);
    s.set.emplace(mpi::ShardedSet::load_checkpoint(o.checkpoint.path, options, s.saved_rules,
                                                   s.resume));
    job::check_resume_files(j, s.resume, o.saves_filter() && s.me.rank == 0, false);
    j.events.info("resuming from checkpoint " + o.checkpoint.path + " at record " +
                  group_digits(s.resume.records));
  } else if (o.kind == JobKind::kQuery || s.filter_existed) {
    check_part_file_cap(j, o.filter_path, false);
    KeyRules file_rules;
    s.set.emplace(mpi::ShardedSet::load(o.filter_path, options, file_rules));
    FilterRules rules;
    rules.keys = file_rules;
    job::check_key_rules(j, rules, kFilterFileVersion, key_rules);
    s.saved_rules = file_rules;
  } else {
    // A capacity sizes the set from the start, each rank's part for its
    // share; without one the parts start small and double as keys come.
    s.set.emplace(o.sizing.capacity.value_or(0), options,
                  KeySetSizeNames{j.given(JobOption::kCapacity), j.name(JobOption::kCapacity),
                                  j.given(JobOption::kMaxMemory),
                                  j.name(JobOption::kMaxMemory)});
  }
  check_part_cap(j, s.set->part().bytes(), "a rank's part of the set");
}

JobResult RankJob::run_set() {
  State& s = *state_;
  job::Job& j = s.job;
  const JobSpec& o = s.spec;
  const mpi::RankInfo& me = s.me;
  PipelineOptions run = job::pipeline_options(j);
  run.resume = o.checkpoint.resume ? &s.resume : nullptr;
  run.stop = o.checkpoint.enabled() ? j.events.stop() : nullptr;
  run.on_progress = [&j](const Progress& p) { j.events.progress(p, 0); };
  JobResult result = job::start_result(j, s.inputs_skipped, run.resume);
  try {
    result.stats = mpi::run_sharded_pipeline(run, *s.set, s.saved_rules);
  } catch (const mpi::JobFailed& e) {
    throw with_cap_advice(j, e);
  }
  if (result.stats.interrupted) return interrupted(j, result);
  j.published.output = true;
  job::JobEnding ending;
  ending.filter_existed = s.filter_existed;
  ending.save = [&] { s.set->save(o.filter_path, s.saved_rules); };
  ending.remove_checkpoint = me.rank == 0;
  ending.write_stats = me.rank == 0;
  const mpi::ShardedSet::Totals totals = s.set->totals();
  result.set = SetSummary{totals.keys, totals.bytes, totals.load,
                          KeySet::collision_chance(totals.keys)};
  result.backend = "cpu exact set on " + std::to_string(me.ranks) +
                   (me.ranks == 1 ? " rank" : " ranks");
  job::finish_job(j, ending, result);
  return result;
}

JobResult RankJob::run() {
  State& s = *state_;
  try {
    return s.spec.exact ? run_set() : run_filter();
  } catch (const mpi::JobFailed& e) {
    // Once the output has taken its place, the failure says what it holds.
    mpi::JobFailed told = e;
    told.failure = job::with_what_is_published(s.job, e.failure);
    throw told;
  } catch (...) {
    std::rethrow_exception(job::with_what_is_published(s.job, std::current_exception()));
  }
}

JobResult RankJob::run_filter() {
  State& s = *state_;
  job::Job& j = s.job;
  const JobSpec& o = s.spec;
  const mpi::RankInfo& me = s.me;
  mpi::ShardedFilter& filter = *s.filter;
  PipelineOptions run = job::pipeline_options(j);
  run.resume = o.checkpoint.resume ? &s.resume : nullptr;
  run.stop = o.checkpoint.enabled() ? j.events.stop() : nullptr;
  // Each rank chooses its own backend (auto: its GPU if it has one, else
  // the CPU), on the GPU its local rank numbers; the answers are the same.
  BackendOptions backend_options;
  backend_options.threads = job::job_threads(o, true).filter;
  backend_options.device = static_cast<int>(me.local_rank);
  std::string backend;
  const BackendMaker make_backend = [&](Filter& part) {
    MadeBackend made;
    try {
      made = choose_backend(o.backend, backend_options, part, j.given(JobOption::kBackend));
    } catch (const UsageError&) {
      throw;
    } catch (const Error& e) {
      if (o.backend != "gpu") throw;
      throw Error(std::string(e.what()) + " (under " + j.name(JobOption::kMpi) + " a rank runs "
                  "on the GPU its rank on its machine numbers, and this rank is number " +
                  std::to_string(me.local_rank) + " on " + me.host + ": start at most one "
                  "rank per GPU on each machine)", e);
    }
    backend = made.description;
    j.events.info("backend of rank 0: " + backend);
    return std::move(made.backend);
  };
  run.on_progress = [&j](const Progress& p) { j.events.progress(p, 0); };
  JobResult result = job::start_result(j, s.inputs_skipped, run.resume);
  result.stats = mpi::run_sharded_pipeline(run, filter, make_backend);
  if (result.stats.interrupted) return interrupted(j, result);
  j.published.output = true;
  // Every layer's counters and set bits, summed over the ranks: every rank
  // finds the same.
  std::vector<FilterSummary> layers;
  job::JobEnding ending;
  for (size_t i = 0; i < filter.layer_count(); ++i) {
    const FilterParams& params = filter.layer_params(i);
    const FilterCounters counters = filter.counters(i);
    const uint64_t set = filter.count_set_bits(i);
    layers.push_back(summarize(params, counters, set));
    const uint64_t uncounted = job::uncounted_keys(result.stats, result.mode, o.missing_key);
    ending.layers.push_back(check_overfull(params, counters, set, uncounted));
  }
  ending.growing = filter.growth().has_value();
  ending.growth_refused = filter.growth_refused();
  ending.filter_existed = s.filter_existed;
  ending.save = [&] { filter.save(o.filter_path, s.saved_rules); };
  ending.remove_checkpoint = me.rank == 0;
  ending.write_stats = me.rank == 0;
  result.filter = combine(layers);
  result.backend = backend.substr(0, backend.find(' ')) + " on " + std::to_string(me.ranks) +
                   (me.ranks == 1 ? " rank" : " ranks");
  job::finish_job(j, ending, result);
  return result;
}

bool RankJob::closed_output_is_failure() const {
  return job::closed_output_is_failure(state_->spec);
}

std::string RankJob::closed_pipe_text() const { return job::closed_pipe_text(state_->job); }

}  // namespace gdedup
