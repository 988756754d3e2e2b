// The options that several subcommands share, as typed (strings, checked
// after parsing so that errors name the option and value in our words), and
// the functions that add them to a subcommand, each under its help group.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "cli/checkpoint_options.h"
#include "cli/cli11_fwd.h"
#include "cli/flags.h"
#include "gdedup/error.h"
#include "gdedup/pipeline.h"

namespace gdedup::cli {

// Help groups, in the order they appear.
inline constexpr const char* kGroupInput = "Input";
inline constexpr const char* kGroupOutput = "Output";
inline constexpr const char* kGroupFilter = "Filter";
inline constexpr const char* kGroupSizing = "Sizing (new filters)";
inline constexpr const char* kGroupKeys = "Keys";
inline constexpr const char* kGroupBackend = "Backend";

// --files-from, -0, --recursive and --skip-missing (JobInputs).
struct InputListOptions {
  std::string files_from;     // "" for none; "-" reads the list from standard input
  bool null_list = false;     // -0: the list's paths end with NUL, not newline
  bool recursive = false;     // a folder stands for the files under it
  bool skip_missing = false;  // a missing file is dropped with a warning
};

struct SizingOptions {
  std::string capacity;  // "" when not given
  std::string fpr;
  std::string memory;
  std::string block_bits;
  bool allow_high_fpr = false;  // run a new filter whose planned rate is above kMaxPlannedFpr

};

// --key, --delimiter and --normalize as given; parse_key_flags() makes them
// the library's typed KeyOptions, once.
struct KeyFlags {
  std::string key = "whole";
  std::string delimiter = "tab";
  std::string normalize;  // "" when not given
  std::string missing_key = "error";  // for JSON and CDXJ keys
  bool strict_json = false;           // for JSON and CDXJ keys
  // Use a filter file whose keys were made by other rules than these.
  bool ignore_key_rules = false;
};

enum class ProgressMode { kAuto, kOn, kOff };

// dedup, build and query.
struct JobOptions {
  std::vector<std::string> inputs;  // INPUT arguments; the job resolves them with the rest
  InputListOptions input_list;
  std::string output = "-";
  std::string output_parts;  // --output-parts DIR: the output as parts and a manifest
  std::string output_format;  // --output-format parquet|lines; "" when not given
  std::string parquet_compression;  // --parquet-compression CODEC; "" for the input's
  std::string row_group_rows;       // --row-group-rows N; "" for the input's row groups
  std::string filter_path;
  SizingOptions sizing;
  KeyFlags keys;
  std::string input_format = "text";
  bool null_data = false;  // -z: records end at NUL instead of newline
  std::string max_record_length;  // "" for the default
  std::string backend = "auto";
  // 0 where not given: the job shares the hardware threads (JobSpec).
  unsigned threads = 0;         // --threads: front-end workers
  unsigned filter_threads = 0;  // --filter-threads: the CPU backend's threads
  int device = 0;        // --device: the GPU backend's CUDA device
  std::string batch;
  std::string stats_path;
  bool quiet = false;
  bool progress = false;
  bool no_progress = false;
  bool duplicates = false;  // dedup --duplicates
  bool absent = false;      // query --absent
  bool exact = false;       // --exact: an exact set instead of a Bloom filter
  bool no_grow = false;     // dedup and build --no-grow
  std::string max_memory;   // dedup, build and query --max-memory; "" for no cap
  CheckpointOptions checkpoint;  // dedup and build
  bool mpi = false;  // --mpi: this process is one rank of an MPI job (job_command.h)
  bool no_mpi = false;  // --no-mpi: one process, even when a launcher started several
  // Set when an MPI launch, not --mpi, made this a rank (cli/mpi_launch.h):
  // the launcher's variable that says so.
  std::string mpi_launch;
  std::set<JobOption> given;  // the options typed (given_options)
  // --piece-bytes and --compressed-piece-bytes: the size of the byte ranges
  // large plain files are read in, and of the compressed parts of a gzip or
  // zstd file; "" for the defaults. Hidden: for tests and tuning.
  std::string piece_bytes;
  std::string compressed_piece_bytes;

  // The byte that ends a record, in the input and the output.
  char record_separator() const { return null_data ? '\0' : '\n'; }

  // Throws UsageError for --progress with --no-progress.
  ProgressMode progress_mode() const {
    if (progress && no_progress) {
      throw UsageError(flag::kProgress + " and " + flag::kNoProgress +
                       " contradict each other; give one of them");
    }
    return progress ? ProgressMode::kOn : no_progress ? ProgressMode::kOff : ProgressMode::kAuto;
  }
};

void add_input_options(CLI::App& app, JobOptions& options);
// -o, --output-parts and --output-format (unless `with_output` is false:
// build writes no records), --stats, -q, --progress, --no-progress.
void add_output_options(CLI::App& app, JobOptions& options, bool with_output);
// --capacity, --fpr, --memory, --block-bits.
void add_sizing_options(CLI::App& app, SizingOptions& options);
// --no-grow and --max-memory (dedup and build).
void add_growth_options(CLI::App& app, JobOptions& options);
// --max-memory, with the command's own `help` (query has it without
// --no-grow, among the filter's options); the caller sets its group.
CLI::Option* add_max_memory_option(CLI::App& app, JobOptions& options, const std::string& help);
// --exact (dedup, build and query).
void add_exact_option(CLI::App& app, JobOptions& options);
void add_key_options(CLI::App& app, KeyFlags& flags);
void add_backend_options(CLI::App& app, JobOptions& options);
// For every option of `app`'s commands that takes a FILE or a DIR, refuses
// an empty value, which the job would take for the option left out (-f ""
// as no filter file: the keys never saved), and a value that starts with
// '-' (but is not "-", standard input or output): it is the next option,
// taken as the value of one given without its own (`--stats -o out.txt`
// would write the stats to a file named -o and the records to standard
// output).
void refuse_options_taken_as_files(CLI::App& app);
// A thread count option (--threads, --filter-threads); the job checks the
// count (check_job_spec).
CLI::Option* add_threads_option(CLI::App& app, const Flag& flag, unsigned& threads,
                                const std::string& help);

// The typed options; a UsageError naming the value unless --key,
// --delimiter and --normalize parse: called before any file is created.
KeyOptions parse_key_flags(const KeyFlags& flags);

InputFormat parse_input_format(const std::string& text);

// The options given on `command`, for JobSpec::given: the job refuses those
// given where they mean nothing (check_job_spec). --checkpoint-every counts
// for both of its intervals; job_spec() keeps those it gave.
std::set<JobOption> given_options(const CLI::App& command);

}  // namespace gdedup::cli
