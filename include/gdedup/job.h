// A job, described once as a typed value and run by the library: the
// command line, the Python package and the ranks of an MPI job each map
// their own words to a JobSpec, hear what the job says through JobEvents,
// and map its JobResult (or its gdedup::Error) back to their own words.
//
//   JobSpec spec;
//   spec.kind = JobKind::kDedup;
//   spec.inputs.paths = {"urls.txt.gz"};
//   spec.output = "unique.txt";
//   spec.filter_path = "seen.gdf";  // extended when it exists, else made
//   JobEvents quiet;                 // says nothing, names options plainly
//   JobResult result = run_job(spec, quiet);
//
// Everything a job decides (its inputs, the filter's size and growth, the
// backend and threads, locks, checkpoint and resume checks, what to save
// when the filter ended far past its plan) is decided here, once, so that
// every front end gets the same answers (docs/ARCHITECTURE.md, "The job").
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "gdedup/filter_merge.h"
#include "gdedup/filter_summary.h"
#include "gdedup/growth.h"
#include "gdedup/key_options.h"
#include "gdedup/mode.h"
#include "gdedup/option_names.h"
#include "gdedup/pipeline.h"
#include "gdedup/planner.h"

namespace gdedup {

enum class JobKind {
  kDedup,  // write each record whose key is new (or, with duplicates, seen before)
  kBuild,  // add every key to the filter, write nothing
  kQuery,  // write each record whose key is in the filter (or, with absent, not)
};

// The rate a new filter is planned for when none is asked for.
inline constexpr double kDefaultFpr = 1e-4;
// A new filter planned to a rate above this drops most unique records: it
// is refused unless JobSizing::allow_high_fpr.
inline constexpr double kMaxPlannedFpr = 0.5;

// Where the records come from, before they are resolved into files.
struct JobInputs {
  std::vector<std::string> paths;  // named inputs, in order; none and no list: standard input
  std::string files_from;  // a file listing more paths ("" for none; "-" standard input)
  bool null_list = false;     // the list's paths end with NUL, not newline
  bool recursive = false;     // a folder stands for the regular files under it
  bool skip_missing = false;  // a missing file is dropped with a warning
};

// The size of a new filter (an existing one keeps its own).
struct JobSizing {
  std::optional<uint64_t> capacity;  // distinct keys expected; else estimated from the inputs
  std::optional<uint64_t> memory;    // the filter's bytes (fixes its size)
  std::optional<double> fpr;         // the rate planned for; kDefaultFpr when not given
  std::optional<uint32_t> block_bits;  // 256 or 512; when not given the planner chooses
  bool allow_high_fpr = false;       // run a filter planned above kMaxPlannedFpr

  bool given() const { return capacity || memory || fpr || block_bits; }
  double rate() const { return fpr.value_or(kDefaultFpr); }
};

// Checkpoints (docs/CHECKPOINT.md).
struct JobCheckpoints {
  std::string path;  // "" when checkpoints are off
  // When one comes due (0: never by that measure). A front end given
  // either interval sets both, the other 0, and names them given
  // (JobSpec::given: kCheckpointEverySeconds, kCheckpointEveryRecords).
  double every_seconds = 60;
  uint64_t every_records = 0;
  bool resume = false;            // continue the run whose checkpoint is at `path`
  bool replayable_stdin = false;  // standard input will be fed again from its start on resume

  bool enabled() const { return !path.empty(); }
};

// The most threads a job's front end or CPU backend may be given: past it a
// count is a mistake (a core count is in the hundreds), and every thread
// takes a stack.
inline constexpr unsigned kMaxJobThreads = 4096;
// The highest GPU device number a job takes: CUDA numbers a machine's
// devices from 0, and a number past this is a mistake.
inline constexpr int kMaxJobDevice = 4095;

// Every field holds a value, its default when the option was not given;
// `given` records which options were. check_job_spec reads both.
struct JobSpec {
  JobKind kind = JobKind::kDedup;
  bool duplicates = false;  // dedup: write the records whose key was seen before
  bool absent = false;      // query: write the records whose key is not in the filter

  // Exact mode: the keys seen are kept in a set (gdedup/key_set.h), not a
  // Bloom filter: no record is ever dropped for a false positive (up to
  // the set's collision chance), and the set grows as keys come, up to
  // max_memory. filter_path names a set file (gdedup/set_file.h) and
  // checkpoints are set checkpoints. Not with sizing other than a
  // capacity, no_grow, fingerprint input or a backend other than the CPU
  // and the GPU.
  bool exact = false;

  JobInputs inputs;
  InputFormat format = InputFormat::kText;
  char record_separator = '\n';  // '\0' for NUL-separated records
  KeyOptions keys;               // text input only
  keys::MissingKey missing_key = keys::MissingKey::kError;  // JSON and CDXJ keys
  // JSON and CDXJ keys: a record has its key only when its JSON is exactly
  // one JSON value, every value in it read (docs/KEYS.md); by default the
  // values after the key and the values before it are only skipped.
  bool strict_json = false;
  bool ignore_key_rules = false; // use a filter file whose keys were made by other rules
  uint64_t max_record_bytes = PipelineOptions{}.max_record_bytes;

  std::string output = "-";  // the records written; "-" is standard output
  std::string output_parts;  // a folder of parts and a manifest instead of `output`
  // Parquet input: its rows as Parquet (kInput, kParquet) or its key
  // column as lines (kLines); records in, kInput only.
  OutputFormat output_format = OutputFormat::kInput;
  // Parquet input's output (PipelineOptions): its codec's name, "" for the
  // first input's; the most rows an output row group holds, 0 for no limit
  // but the input's row groups.
  std::string parquet_compression;
  uint64_t row_group_rows = 0;
  std::string filter_path;   // "" for none; dedup and build save to it, query reads it
  std::string stats_path;    // the statistics JSON; "" for none

  JobSizing sizing;
  bool no_grow = false;     // a new filter is fixed; an existing growing one holds its layers
  uint64_t max_memory = 0;  // the cap on a growing filter's (or a set's) bytes; 0 for none

  std::string backend = "auto";  // a registered backend's name, or "auto"
  // At most kMaxJobThreads each.
  unsigned threads = 0;         // front-end workers; 0: shared with filter_threads by default
  unsigned filter_threads = 0;  // the CPU backend's threads; 0: the default share
  int device = 0;               // the GPU backend's CUDA device, 0 to kMaxJobDevice
  uint64_t batch_records = PipelineOptions{}.batch_records;
  // Advanced, for tests and tuning (PipelineOptions): the ranges large
  // plain files are read in, and the compressed bytes a part of a gzip or
  // zstd file holds at least.
  uint64_t piece_bytes = PipelineOptions{}.piece_bytes;
  uint64_t compressed_piece_bytes = PipelineOptions{}.compressed_piece_bytes;

  JobCheckpoints checkpoint;

  // The options the front end was given, whatever their values. A value
  // alone cannot say it where the default is a value too (a device of 0, a
  // tab delimiter, no cap), and yet an option given where it means nothing
  // (a device for the CPU backend, a delimiter for a key without fields, a
  // key for fingerprints) or given a value that is no choice (a cap of 0
  // bytes, 0 threads) is refused, in every front end alike. The sizing's
  // optionals record their own.
  std::set<JobOption> given;
  bool gave(JobOption option) const { return given.count(option) > 0; }

  Mode mode() const;
  // Dedup and build save their filter to filter_path; a query only reads it.
  bool saves_filter() const { return !filter_path.empty() && kind != JobKind::kQuery; }
};

// What a job says while it runs, and how the front end names its options
// (OptionNames). The defaults say nothing and use the library's own names.
class JobEvents : public OptionNames {
 public:
  virtual void info(const std::string& message) { (void)message; }
  virtual void warn(const std::string& message) { (void)message; }
  // After each batch; `layers` > 0 for a growing filter. From the filter thread.
  virtual void progress(const Progress& progress, size_t layers) { (void)progress, (void)layers; }
  // Set when the job should stop at its next batch with a checkpoint; null: never.
  virtual const std::atomic<bool>* stop() const { return nullptr; }
  // What set stop(), for the line that says where the job stopped
  // ("SIGTERM from process 4242"); "" to say nothing.
  virtual std::string stop_cause() const { return ""; }
  // Once, when the job has read all its input and begins to put its
  // results in place: its output's rename, then its filter file, then its
  // statistics. From then on it completes, or fails and says what each
  // file holds: a front end that would stop it part way (a signal) must
  // wait until run_job returns. From the job's own thread.
  virtual void publishing() {}
};

// The set an exact-mode job ended with.
struct SetSummary {
  uint64_t keys = 0;
  uint64_t bytes = 0;
  double load = 0;              // keys held over slots
  double collision_chance = 0;  // KeySet::collision_chance(keys)
};

enum class JobStatus {
  kComplete,
  kInterrupted,  // stopped at a checkpoint (JobEvents::stop); `message` says how to resume
  kOverfull,     // the filter ended far past its plan and was not saved; `message` says more
  kOutputClosed, // the output's reader went away and nothing else was to be saved
};

struct JobResult {
  JobStatus status = JobStatus::kComplete;
  std::string message;  // for kInterrupted and kOverfull
  // Whether the filter file (JobSpec::filter_path) now holds this job's
  // filter: false for a query, an interrupted job, and a filter far past
  // its plan, which is never saved.
  bool filter_saved = false;
  // kOverfull: the oldest layer far past its plan (its numbers: planned,
  // taken, lost, the capacity that would have served).
  std::optional<Overfull> overfull;
  Mode mode = Mode::kDedup;
  PipelineStats stats;
  FilterSummary filter;  // the filter the job ended with (none for exact mode)
  std::optional<SetSummary> set;  // exact mode's set
  std::string backend;   // "cpu", or "cpu on 2 ranks"
  bool checkpointing = false;
  uint64_t inputs = 0;          // files read (standard input counts as one)
  uint64_t inputs_skipped = 0;  // missing, left out by skip_missing
  // A resumed run's stats count the records before the checkpoint too.
  uint64_t resumed_records = 0;
  uint64_t resumed_bytes = 0;
};

// Runs the job in this process. Throws UsageError for a spec that cannot
// run (check_job_spec, then what only the files can tell), named in the
// front end's words, Error with its ErrorKind for a failure; every check is
// made before any file is read or created.
JobResult run_job(const JobSpec& spec, JobEvents& events);

// The one check of a whole spec, made by run_job and the ranks of an MPI
// job before anything else, so that every front end refuses the same specs
// in the same words: it only maps its own words to a JobSpec. Throws
// UsageError, naming each option as `names` gives it (given(), with the
// value the user typed, where the message quotes it), for
// - a value that is no choice: a capacity of 0, a memory budget under one
//   filter block, a rate not between 0 and 1, block bits other than 256
//   and 512, a max_memory of 0, threads of 0 or past kMaxJobThreads, a
//   device outside 0 to kMaxJobDevice, a batch, piece or record length of
//   0, a checkpoint interval of 0;
// - options that conflict: a rate with a memory budget, a rate above
//   kMaxPlannedFpr without allow_high_fpr, in exact mode a Bloom filter's
//   sizing, no_grow, fingerprints or a backend other than the CPU and GPU;
// - an option given where it means nothing: a key option (key, delimiter,
//   normalize, missing_key), an output format or a record length for
//   fingerprints, an output format for a build, a delimiter with a key
//   that is not a field key (check_given_delimiter), a device with the CPU
//   backend, CPU threads with the GPU backend, more
//   than one front-end thread for fingerprints, a checkpoint interval
//   without a checkpoint, a NUL-separated list without a list, NUL-
//   separated fingerprints, a JSON key's options with another key, a key
//   delimiter that is the record separator.
// An option accepted and ignored hides a mistake.
void check_job_spec(const JobSpec& spec, const OptionNames& names);

// check_job_spec's rule for a thread count given (`option`: kThreads or
// kFilterThreads): 1 to kMaxJobThreads, for a program that takes one
// outside a job (a Python Filter or Set).
void check_thread_count(JobOption option, unsigned count, const OptionNames& names);

// The part of check_job_spec that sizes a new filter (the first two kinds
// above), for a program that plans one itself (plan_fixed_filter,
// growth_rule); with `exact`, the refusal of every Bloom sizing option
// given, as check_job_spec refuses them for an exact job.
void check_job_sizing(const JobSizing& sizing, const OptionNames& names, bool exact = false);

// The plan `sizing` asks for at `keys` distinct keys: sized by its memory
// budget when it has one, else for its rate.
Plan plan_for_keys(const JobSizing& sizing, uint64_t keys);

// The plan of a new fixed filter of `sizing` for keys a program adds itself
// (no inputs to estimate from): a capacity, or a memory budget (the rate
// then assumes the load typical of a filter of kDefaultFpr). Refused
// (UsageError, in `events`' words) as check_job_sizing refuses it, when
// neither is given, or when the plan's expected rate is above
// kMaxPlannedFpr without allow_high_fpr; a memory budget that holds the rate above ten
// times kDefaultFpr is warned of.
Plan plan_fixed_filter(const JobSizing& sizing, JobEvents& events);

// The growth of a new growing filter of `sizing`: from its capacity, or
// from a small first layer.
GrowthRule growth_rule(const JobSizing& sizing);

// "1,000,000 records: 600,000 kept, ... in 1.23 s (813k records/s); filter
// 12.34% full, ~600,000 distinct keys, FPR now ..."
std::string summary_line(const JobResult& result);

// What a job that ends now, before it completes, leaves of its files:
// "the job did not finish" + `why` + what became of each.
std::string unfinished_job_text(const JobSpec& spec, const JobEvents& events,
                                const std::string& why);

// The files that hold the result of a job that completed (a status of
// kComplete or kOverfull), for a front end whose stop came too late to
// stop it: "the output o.txt, the set file s.gds and st.json hold this
// job's result".
std::string completed_job_text(const JobSpec& spec, const JobResult& result);

}  // namespace gdedup
