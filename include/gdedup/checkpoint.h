// Checkpoints: the filter and the state a streaming run needs to continue
// where it stopped (docs/CHECKPOINT.md; file layout in docs/FORMAT.md,
// "Checkpoint file").
//
// Resuming, as a caller does it:
//
//   Checkpoint ck = load_checkpoint(path);      // refuses damaged files
//   auto backend = make_cpu_backend(ck.filter);  // or a GPU backend
//   options.checkpoint = path;                   // keep checkpointing
//   options.resume = &ck.state;
//   run_pipeline(options, ck.filter, *backend);  // checks inputs and options
//
// or, for a checkpoint of a filter that grows (ck.state.growth is set):
//
//   auto filter = resume_growing_filter(ck, make_backend);
//   run_pipeline(options, *filter);
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gdedup/filter.h"
#include "gdedup/growth.h"
#include "gdedup/layered_filter.h"
#include "gdedup/key_options.h"
#include "gdedup/mode.h"
#include "gdedup/stream_point.h"

namespace gdedup {

// What tells a resumed run that an input is the file the checkpoint read.
struct InputIdentity {
  std::string path;
  // False for standard input and pipes: nothing about them can be checked,
  // and they are only accepted with PipelineOptions::replayable_stdin.
  bool regular = true;
  uint64_t size = 0;          // bytes of the file as stored (compressed size)
  int64_t mtime_ns = 0;       // modification time, nanoseconds since 1970
  uint64_t sample_hash = 0;   // XXH3-64 of sampled stored bytes (docs/CHECKPOINT.md)
};

// The filter file a job saves its filter to when it completes, as it was
// when the job started (PipelineOptions::saved_filter): a job that starts
// from a filter file, or creates one, holds it locked while it runs, but not
// while it is stopped, and its checkpoint's filter does not hold the keys
// another job saved there meanwhile (docs/CHECKPOINT.md, "The filter file").
struct FilterFileMark {
  bool recorded = false;  // false: a checkpoint of version 5 or older noted none
  bool existed = false;   // a file was there (its identity below); false: none, or no -f
  InputIdentity file;     // size, modification time and sample, as for an input
};

// The filter file at `path` as it is now (existed is false for "" and a
// missing file). Throws Error naming it when it cannot be read.
FilterFileMark mark_filter_file(const std::string& path);

// "" when the file `now` is the one `then` noted (or `then` noted nothing);
// otherwise what became of it, in words: "it was removed", "it was saved
// again or replaced (its size was N bytes and is now M)".
std::string filter_file_change(const FilterFileMark& then, const FilterFileMark& now);

// How a growing filter grows and how far it got: saved with its layers, so
// that a resumed run adds its layers exactly where the uninterrupted run
// would (gdedup/layered_filter.h).
struct GrowthState {
  GrowthRule rule;
  uint64_t max_bytes = 0;     // LayeredFilter::set_max_bytes (0: no limit)
  uint64_t keys_offered = 0;  // LayeredFilter::keys_offered
};

// One layer of a saved filter, as its header describes it.
struct SavedLayer {
  FilterParams params;
  uint64_t insertions = 0;
};

struct ResumeState {
  // Options that decide the output: a resumed run must use the same ones.
  Mode mode = Mode::kDedup;
  InputFormat format = InputFormat::kText;
  char record_separator = '\n';  // PipelineOptions::record_separator
  KeyOptions keys;
  // What becomes of records without their JSON or CDXJ key (version 7;
  // kError in older checkpoints, which had no such keys).
  keys::MissingKey missing_key = keys::MissingKey::kError;
  bool strict_json = false;  // PipelineOptions::strict_json (false in older checkpoints)
  std::vector<InputIdentity> inputs;
  std::string output;          // "" when the mode writes no output
  // The file the output is written to until the run completes and renames
  // it over `output` (io/output_file.h): what a resumed run continues.
  std::string output_temporary;
  // The filter file the job saves to, as it was when the job started.
  FilterFileMark filter_file;

  StreamPoint position;        // input consumed up to here
  uint64_t output_offset = 0;  // output bytes written for those records
  uint64_t output_checksum = 0;  // XXH3-64 of those bytes, checked on resume
  // A Parquet output's footer for its row groups in those bytes (version
  // 8): Parquet's FileMetaData as the Parquet module wrote it, opaque
  // here; empty for other outputs (docs/CHECKPOINT.md, "Parquet input").
  std::string output_footer;
  uint64_t records = 0;        // PipelineStats at the checkpoint
  uint64_t kept = 0;
  uint64_t dropped = 0;
  uint64_t input_bytes = 0;
  uint64_t missing_keys = 0;   // PipelineStats::missing_keys (version 7)

  // The filter saved with this state (filled in by the loaders), so that a
  // run can tell it was given that filter and not another.
  // params and insertions are those of a fixed filter, or of the first
  // layer of a growing one.
  FilterParams params;
  uint64_t insertions = 0;
  // Set when the filter grows; then later_layers are its other layers,
  // oldest first.
  std::optional<GrowthState> growth;
  std::vector<SavedLayer> later_layers;
  // The checkpoint format version the state was loaded from (docs/FORMAT.md),
  // and the file, for messages; neither is stored.
  uint32_t file_version = 0;
  std::string loaded_from;
};

struct Checkpoint {
  Filter filter;  // the fixed filter, or the first layer of a growing one
  ResumeState state;
  // A growing filter's other layers, oldest first; empty for a fixed one.
  std::vector<Filter> later_layers;
};

// Reads and verifies a checkpoint: magic, version, every parameter, the
// header, state, layer table and bit array checksums, and the exact length.
// Throws Error naming the file and what is wrong with it; never returns
// anything from a damaged file. A checkpoint of the previous format version
// (4, which held one layer) loads as a fixed filter.
Checkpoint load_checkpoint(const std::string& path);

// The growing filter a checkpoint holds, its layers moved out of
// `checkpoint`, with the checkpoint's growth rule, memory limit and keys
// offered, and each layer's backend from `make_backend`. Throws UsageError
// when the checkpoint holds a fixed filter (state.growth is empty).
std::unique_ptr<LayeredFilter> resume_growing_filter(Checkpoint& checkpoint,
                                                     BackendMaker make_backend);

// True when `path` starts with the checkpoint magic, whatever else it holds
// (false when it cannot be read): for tools that take either kind of file.
bool is_checkpoint_file(const std::string& path);

// The state alone, verified the same way except for the bit array, which is
// not read: for reports about a checkpoint.
ResumeState read_checkpoint_state(const std::string& path);

// Writes a checkpoint of the fixed filter `filter` and `state` (params and
// insertions are taken from the filter; growth and later_layers are not
// used): to a new `path`.tmp.XXXXXX (O_EXCL, follows no link), fsync,
// rename over `path`, fsync of the folder. On failure throws Error naming
// the file and the reason, and the file at `path` is untouched.
// run_pipeline() calls this in the background; it is public for tools and
// tests.
void save_checkpoint(const Filter& filter, const ResumeState& state, const std::string& path);
// The same for a growing filter: every layer (their words as the host
// holds them: sync_to_host first), its growth rule, memory limit and keys
// offered (state.growth and later_layers are taken from the filter).
void save_checkpoint(const LayeredFilter& filter, const ResumeState& state,
                     const std::string& path);
// What load_checkpoint returned, saved again as it was.
void save_checkpoint(const Checkpoint& checkpoint, const std::string& path);

// Throws Error naming the first parameter (layout, seed, size) in which
// `requested` differs from the checkpoint's `saved` filter:
// for callers that planned a filter from options and resume with the
// checkpoint's.
void check_checkpoint_params(const FilterParams& saved, const FilterParams& requested);

// Throws Error naming the first thing in which a run's filter differs from
// the checkpoint's in how it grows: fixed against growing, then each field
// of the growth rule, then the memory limit. `saved` is state.growth,
// `requested` the run's (nullopt: a fixed filter); for callers that plan
// the growth from options and resume with the checkpoint's filter.
void check_checkpoint_growth(const std::optional<GrowthState>& saved,
                             const std::optional<GrowthState>& requested);

// Throws Error naming the first way in which `inputs` differ from the inputs
// `state` was taken on: their count, a path, a file's size. A cheap look
// (run_pipeline checks every input's whole identity) for a caller that
// sizes the filter from the inputs before the run: a filter estimated from
// other inputs would otherwise be the first difference it finds.
void check_checkpoint_inputs(const ResumeState& state, const std::vector<std::string>& inputs);

}  // namespace gdedup
