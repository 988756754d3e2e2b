#include "cli/mpi_job.h"

#include <exception>
#include <functional>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/backend_choice.h"
#include "cli/checkpoint_job.h"
#include "cli/checkpoint_options.h"
#include "cli/console.h"
#include "cli/error_advice.h"
#include "cli/file_locks.h"
#include "cli/growth_choice.h"
#include "cli/input_list.h"
#include "cli/interrupt.h"
#include "cli/job.h"
#include "cli/job_checks.h"
#include "cli/mpi_launch.h"
#include "cli/numbers.h"
#include "cli/overfull.h"
#include "cli/preflight.h"
#include "cli/progress.h"
#include "cli/report.h"
#include "cli/sizing.h"
#include "cli/stats.h"
#include "gdedup/error.h"
#include "gdedup/filter_file.h"
#include "gdedup/filter_summary.h"
#include "gdedup/mpi.h"
#include "gdedup/paths.h"

namespace gdedup::cli {
namespace {

constexpr int kExitRuntime = 1;
constexpr int kExitUsage = 2;

// What one process would accept but the ranks cannot do yet: refused by
// name, never ignored.
void refuse_unsupported(const JobOptions& o) {
  if (o.threads > 1) {
    throw UsageError("--threads is not supported under --mpi yet; each rank reads with one "
                     "thread: run more ranks instead (--filter-threads sets the threads that "
                     "run a rank's blocks on its CPU)");
  }
}

// Everything a rank sets up before the work, checked alike on every rank.
struct Setup {
  JobOptions options;  // the command's, its inputs resolved
  SizingRequest request;
  PipelineOptions run;
  std::optional<mpi::ShardedFilter> filter;
  ResumeState resume;  // with --resume: the checkpoint's
  KeyRules saved_rules;  // what the saved filter records
  bool saves_filter = false;
  bool filter_existed = false;
  uint64_t inputs_skipped = 0;  // --skip-missing
  FileLocks locks;  // rank 0's
};

// The first part of the setup: the options parsed, and the inputs resolved
// and checked, which every rank then compares with rank 0's
// (mpi::check_same_inputs) before anything is planned from them.
Setup parse(const JobOptions& options, JobKind kind) {
  Setup s;
  s.options = options;
  JobOptions& o = s.options;
  s.run.mode = mode_for(o, kind);
  s.run.format = parse_input_format(o.input_format);
  s.request = parse_sizing(o.sizing);
  o.progress_mode();  // --progress with --no-progress
  s.run.batch_records = batch_records(o.batch);
  s.run.keys = s.run.format == InputFormat::kText ? parse_key_flags(o.keys) : KeyOptions{};
  ResolvedInputs inputs = resolve_inputs(o.inputs, o.input_list);
  o.inputs = std::move(inputs.paths);
  s.inputs_skipped = inputs.skipped.size();
  check_inputs(o.inputs);
  s.run.inputs = o.inputs;
  return s;
}

// The rest, once every rank sees rank 0's inputs.
void prepare(Setup& s, JobKind kind, const mpi::RankInfo& me) {
  JobOptions& o = s.options;
  const Mode mode = s.run.mode;
  const InputFormat format = s.run.format;
  const SizingRequest& request = s.request;
  const KeyOptions& keys = s.run.keys;
  s.saves_filter = !o.filter_path.empty() && kind != JobKind::kQuery;
  const bool filter_existed = !o.filter_path.empty() && file_exists(o.filter_path);
  s.filter_existed = filter_existed;
  refuse_unsupported(o);
  const bool grows = growth_chosen(o, kind, request);
  const uint64_t max_memory =
      o.max_memory.empty() ? 0 : parse_bytes(o.max_memory, "--max-memory");
  check_files(o, mode, s.saves_filter);

  s.run.output = o.output;
  s.run.output_parts = o.output_parts;
  s.run.record_separator = o.record_separator();
  s.run.max_record_bytes = max_record_bytes(o.max_record_length, format);
  s.run.piece_bytes = piece_bytes(o.piece_bytes);
  apply_checkpoint_options(o.checkpoint, s.run);
  s.run.saved_filter = s.saves_filter ? o.filter_path : "";

  if (me.rank == 0) {
    s.locks = lock_job_files(output_to_lock(o, mode),
                             o.checkpoint.enabled() ? o.checkpoint.path : "",
                             s.saves_filter ? o.filter_path : "");
  }
  const KeyRules key_rules = command_key_rules(format, keys, o.record_separator());
  s.saved_rules = key_rules;
  if (o.checkpoint.resume) {
    // The filter is the checkpoint's; an existing filter file keeps its
    // own key rules, as when the run began.
    // Rank 0 saves the filter file; no rank can compare it with its part.
    check_resume_files(o, s.saves_filter && me.rank == 0, false);
    if (filter_existed) {
      if (auto rules = read_filter_info(o.filter_path).rules.keys) s.saved_rules = *rules;
    }
    s.filter.emplace(mpi::ShardedFilter::load_checkpoint(o.checkpoint.path, s.resume));
    check_resume_growth(o, s.resume,
                        requested_growth(o, request, format, grows, filter_existed, max_memory));
    if (!s.resume.growth) check_resume_sizing(o, request, format, s.resume.params);
    Console::get().info("resuming from checkpoint " + o.checkpoint.path + " at record " +
                        group_digits(s.resume.records));
    return;
  }
  refuse_existing_checkpoint(o);
  if (kind == JobKind::kQuery || filter_existed) {
    const FilterFileInfo info = read_filter_info(o.filter_path);
    check_key_rules(o, info.rules, info.version, key_rules);
    if (info.rules.keys) s.saved_rules = *info.rules.keys;
    if (kind != JobKind::kQuery && me.rank == 0) {
      warn_ignored_sizing(o, request, info.rules, info.params[0], format);
    }
    s.filter.emplace(mpi::ShardedFilter::load(o.filter_path));
    mpi::ShardedFilter& filter = *s.filter;
    if (filter.growth()) {
      filter.set_max_bytes(growth_limit(o, filter.bytes(), filter.layer_count(), max_memory));
    } else if (max_memory != 0 && filter.bytes() > max_memory) {
      throw UsageError("--max-memory " + o.max_memory + " is less than the " +
                       human_bytes(filter.bytes()) + " of the fixed filter " + o.filter_path +
                       "; raise it, or leave it out");
    }
  } else if (grows) {
    const GrowthRule rule = plan_growth(request, o.inputs, format, o.record_separator());
    Console::get().info(growth_summary(rule) +
                        (o.filter_path.empty() ? "" : ", saved to " + o.filter_path));
    s.filter.emplace(rule, kDefaultSeed, 0);
    s.filter->set_max_bytes(growth_limit(o, s.filter->bytes(), 1, max_memory));
  } else {
    const Plan plan =
        plan_new_filter(request, o.inputs, format, o.record_separator(), o.filter_path);
    FilterCounters counters;
    counters.planned_capacity = plan.capacity;
    counters.planned_fpr = plan.expected_fpr;
    s.filter.emplace(FilterParams{plan.num_blocks, plan.layout, kDefaultSeed}, counters);
  }
}

// The work, once every rank has passed its checks; the exit status, as one
// process's (4 when the filter ended far past its plan).
int run(Setup& s, const JobOptions& o, JobKind kind, const mpi::RankInfo& me) {
  mpi::ShardedFilter& filter = *s.filter;
  s.run.resume = o.checkpoint.resume ? &s.resume : nullptr;
  s.run.stop = o.checkpoint.enabled() ? stop_flag() : nullptr;
  // Each rank chooses its own backend (auto: its GPU if it has one, else
  // the CPU), on the GPU its local rank numbers; the answers are the same.
  BackendOptions backend_options;
  backend_options.threads = o.filter_threads > 0 ? o.filter_threads : 1;
  backend_options.device = static_cast<int>(me.local_rank);
  std::string backend;
  const BackendMaker make_backend = [&](Filter& part) {
    MadeBackend made;
    try {
      made = choose_backend(o.backend, backend_options, part);
    } catch (const UsageError&) {
      throw;
    } catch (const Error& e) {
      if (o.backend != "gpu") throw;
      throw Error(std::string(e.what()) + " (under --mpi a rank runs on the GPU its rank on its "
                  "machine numbers, and this rank is number " + std::to_string(me.local_rank) +
                  " on " + me.host + ": start at most one rank per GPU on each machine)", e);
    }
    backend = made.description;
    Console::get().info("backend of rank 0: " + backend);
    return std::move(made.backend);
  };
  // Rank 0 draws the job's progress after every round.
  ProgressLine progress(me.rank == 0 && progress_wanted(o.progress_mode()));
  s.run.on_progress = [&progress](const Progress& p) { progress.update(p); };
  PipelineStats stats;
  try {
    stats = mpi::run_sharded_pipeline(s.run, filter, make_backend);
  } catch (...) {
    progress.finish();
    throw;
  }
  progress.finish();
  Console& console = Console::get();
  if (stats.interrupted) {
    // Every rank's part of the checkpoint is written; rank 0 says so, and
    // mpirun may stop the others as soon as its status is not 0.
    end_quietly_on_signals();
    if (me.rank == 0) console.error(interrupted_line(stats, o.checkpoint.path));
    return kExitInterrupted;
  }
  // Every layer's counters and set bits, summed over the ranks: every rank
  // finds the same.
  std::vector<FilterSummary> layers;
  std::vector<std::optional<Overfull>> over;
  for (size_t i = 0; i < filter.layer_count(); ++i) {
    const FilterParams& params = filter.layer_params(i);
    const FilterCounters counters = filter.counters(i);
    const uint64_t set = filter.count_set_bits(i);
    layers.push_back(summarize(params, counters, set));
    over.push_back(check_overfull(params, counters, set, uncounted_keys(stats, s.run.mode)));
  }
  // A query adds no keys: its filter's state is not its doing.
  std::optional<std::string> overfull;
  if (kind != JobKind::kQuery) {
    overfull = overfull_error(over, filter_end(o, s.run.mode, filter.growth().has_value(),
                                               filter.growth_refused(), s.filter_existed));
  }
  // A filter far past its plan is not saved (overfull_error says so).
  if (s.saves_filter && !overfull) filter.save(o.filter_path, s.saved_rules);
  // Only now, with the output renamed and the filter saved, is the
  // checkpoint no longer needed.
  if (o.checkpoint.enabled() && me.rank == 0) fs::unlink_file(o.checkpoint.path);
  JobReport report;
  report.mode = s.run.mode;
  report.stats = stats;
  report.filter = combine(layers);
  report.backend = backend.substr(0, backend.find(' ')) + " on " + std::to_string(me.ranks) +
                   (me.ranks == 1 ? " rank" : " ranks");
  report.inputs = s.run.inputs.size();
  report.inputs_skipped = s.inputs_skipped;
  report.checkpointing = o.checkpoint.enabled();
  if (s.run.resume != nullptr) {
    report.resumed_records = s.resume.records;
    report.resumed_bytes = s.resume.input_bytes;
  }
  if (me.rank == 0 && !o.stats_path.empty()) {
    write_stats_file(o.stats_path, stats_json(report).str() + "\n");
  }
  console.info(summary_line(report) + " (" + report.backend + ")");
  if (!overfull) return 0;
  // Rank 0 says it, as one process would.
  if (me.rank == 0) console.error(*overfull);
  return kExitOverfull;
}

bool broken_pipe(const std::exception_ptr& failure) {
  try {
    std::rethrow_exception(failure);
  } catch (const Error& e) {
    return e.kind() == ErrorKind::broken_pipe;
  } catch (...) {
    return false;
  }
}

// The message and status of a failure, as main() would give them.
int describe(std::exception_ptr failure, std::string& message) {
  try {
    std::rethrow_exception(failure);
  } catch (const UsageError& e) {
    message = with_advice(e);
    return kExitUsage;
  } catch (const Error& e) {
    message = with_advice(e);
    return kExitRuntime;
  } catch (const std::bad_alloc&) {
    message = "out of memory; a smaller --memory or --capacity, or more ranks, needs less";
  } catch (const std::exception& e) {
    message = std::string("unexpected error: ") + e.what();
  }
  return kExitRuntime;
}

}  // namespace

int run_mpi_job(const JobOptions& options, JobKind kind) {
  const mpi::RankInfo me = mpi::join(nullptr, nullptr);
  Console& console = Console::get();
  console.set_quiet(options.quiet || me.rank != 0);
  // mpirun sends SIGTERM to every rank when one of them fails or dies. A
  // checkpointed job takes a signal as a request to stop at the next round
  // with a checkpoint (a second one ends it at once); mpirun's SIGKILL
  // follows if a rank waits on one that died, and the last checkpoint stays.
  if (!options.checkpoint.enabled()) {
    end_on_signals(unfinished_run(options, kind, mode_for(options, kind),
                                  " (if another rank failed or was killed, its message or "
                                  "mpirun's says why)"));
  }
  const std::string where = "rank " + std::to_string(me.rank) + " on " + me.host + ": ";
  // A launcher that started N processes which MPI could not join (srun
  // without the MPI library's plugin: each a world of one) would have
  // each run the whole job into the same files.
  const MpiLaunch launch = detect_mpi_launch();
  if (launch.processes > 1 && launch.processes != me.ranks) {
    console.error(where + "the launcher started " + std::to_string(launch.processes) +
                  " processes (" + launch.evidence + ") but MPI joined " +
                  std::to_string(me.ranks) + " of them into this job, so they cannot share "
                  "it; start them with an MPI plugin the MPI library supports (for OpenMPI "
                  "under Slurm, srun --mpi=pmix), or with mpirun");
    mpi::leave();
    return kExitUsage;
  }
  if (!mpi::same_everywhere(std::hash<std::string>{}(command_line()))) {
    // Every rank finds it: rank 0 says it.
    if (me.rank == 0) {
      console.error("the ranks were not all given the same command line, which one job "
                    "needs; to run a job of its own in each process, give each --no-mpi "
                    "(and files of its own)");
    }
    // mpirun stops the ranks still leaving once rank 0 is gone: they end
    // without a line of their own.
    end_quietly_on_signals();
    mpi::leave();
    return kExitUsage;
  }
  if (!options.mpi_launch.empty()) {
    console.info("started as one of " + std::to_string(me.ranks) + " processes by an MPI "
                 "launcher (" + options.mpi_launch + "): one job over " +
                 std::to_string(me.ranks) + " ranks (--no-mpi runs each alone)");
  }

  std::optional<Setup> setup;
  std::string message;
  int status = 0;
  // Every rank knows the job failed: the one message is out, and every
  // rank ends with the job's worst status.
  auto end_together = [&](int status) {
    const int job_status = mpi::max_status(status);
    end_quietly_on_signals();  // mpirun stops the slower ranks
    setup.reset();
    mpi::leave();
    return job_status;
  };
  // A collective step that found a rank's failure: that rank says it.
  auto report = [&](const mpi::JobFailed& e) {
    if (!e.failure) return end_together(0);
    status = describe(e.failure, message);
    console.error(e.everywhere ? message : where + message);
    return end_together(status);
  };
  // A step of the setup that each rank takes alone: if it failed anywhere,
  // the lowest failing rank says why (naming itself unless every rank
  // failed alike).
  auto set_up = [&](const std::function<void()>& step) {
    try {
      step();
    } catch (...) {
      status = describe(std::current_exception(), message);
    }
    bool all_failed = false;
    const int first = mpi::first_failure(status != 0, all_failed);
    if (static_cast<int>(me.rank) == first) console.error(all_failed ? message : where + message);
    return first < 0;
  };
  if (!set_up([&] { setup.emplace(parse(options, kind)); })) return end_together(status);
  // Sizing and the pieces are planned from the inputs each rank finds, and
  // each rank reads its blocks of a filter file or checkpoint, and the
  // rounds need the same everywhere: ranks that see different files at one
  // path (each its own working folder, or its machine's copy) are refused
  // before any work.
  try {
    const JobOptions& o = setup->options;
    std::vector<std::pair<std::string, std::string>> job_files;
    if (!o.filter_path.empty()) job_files.emplace_back("filter file", o.filter_path);
    if (o.checkpoint.resume) job_files.emplace_back("checkpoint", o.checkpoint.path);
    mpi::check_same_inputs(setup->run.inputs, job_files);
  } catch (const mpi::JobFailed& e) {
    return report(e);
  }
  if (!set_up([&] { prepare(*setup, kind, me); })) return end_together(status);
  try {
    status = run(*setup, options, kind, me);
  } catch (const mpi::JobFailed& e) {
    if (e.failure && broken_pipe(e.failure)) {
      // Rank 0's stream: as one process, quiet unless it was to save what
      // it saw.
      if (!setup->saves_filter && options.stats_path.empty()) return end_together(0);
      console.error(closed_pipe_text(options, setup->saves_filter));
      return end_together(kExitRuntime);
    }
    return report(e);
  } catch (...) {
    // This rank alone knows: the others wait in a collective call.
    status = describe(std::current_exception(), message);
    mpi::abort_job(message, status);
  }
  setup.reset();
  mpi::leave();
  return status;
}

}  // namespace gdedup::cli
