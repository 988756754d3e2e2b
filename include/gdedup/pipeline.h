// The streaming driver: reads records from files or standard input, selects
// and fingerprints their keys, runs them through a backend in batches and
// writes the records the mode asks for, in input order. The caller's thread
// runs the filter; meanwhile a thread of the driver's copies the records the
// batch before kept into the output writer's buffers, which a writer thread
// of the output's own hands to the kernel (at most 3 buffers of 2 MiB,
// io::OutputWriter); the reading (read,
// decompress, split) and hashing run on threads of their own: one of each,
// or read_threads workers that each take pieces of the input at once, with
// a bounded number of batches in between (another thread writes checkpoints
// while work goes on): memory is the filter plus a few batches per thread,
// whatever the input size.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gdedup/backend.h"
#include "gdedup/filter.h"
#include "gdedup/key_options.h"
#include "gdedup/key_set.h"
#include "gdedup/mode.h"
#include "gdedup/option_names.h"

namespace gdedup {

struct ResumeState;    // gdedup/checkpoint.h
class LayeredFilter;   // gdedup/layered_filter.h
class GpuKeySet;       // gdedup/gpu.h
struct KeyRules;       // gdedup/key_rules.h

struct Progress {
  uint64_t records = 0;
  uint64_t kept = 0;            // records written
  uint64_t input_bytes = 0;     // raw (compressed) bytes read so far
  uint64_t input_size = 0;      // raw size of all inputs; 0 when unknown
  uint64_t input = 0;           // the input being read, from 0; `inputs` at the end
  uint64_t inputs = 0;          // inputs of the run
  double seconds = 0;
};

struct PipelineOptions {
  std::vector<std::string> inputs{"-"};  // paths; "-" is standard input
  // Path, "-" for standard output; unused by kBuild. A regular file (or a
  // new name) is written to a temporary file beside it, OUTPUT.tmp.XXXXXX,
  // renamed over it when the run completes: a run that fails or is stopped
  // leaves it as it was. Standard output, devices and pipes are streamed.
  std::string output = "-";
  // When set (a folder, created if missing), the output goes there as part
  // files and a manifest instead of to `output`: the parts listed in
  // FOLDER/MANIFEST, concatenated in order, are the bytes `output` would
  // hold. One process writes one part; the ranks of an MPI job one for each
  // input piece that kept a record. The manifest is written last, so a run
  // that fails leaves the folder's previous output (manifest and parts)
  // standing; a run that completes removes the parts of the previous one.
  // Not with checkpoints (UsageError).
  std::string output_parts;
  // What a run of Parquet input writes: the kept rows as Parquet (kInput,
  // kParquet), or each kept row's key value as a record, ended by
  // record_separator (kLines; docs/CLI.md, "Parquet"). A run of records
  // takes kInput only (UsageError).
  OutputFormat output_format = OutputFormat::kInput;
  Mode mode = Mode::kDedup;
  InputFormat format = InputFormat::kText;
  // The byte that ends a text record, in the input and in the output: '\n'
  // (lines) or '\0' (NUL-separated records, which may hold newlines, as
  // `find -print0` and the -z of sort, uniq and grep write them). Never
  // inside a record, so it cannot be the key's field delimiter.
  char record_separator = '\n';
  KeyOptions keys;
  // A record without its JSON or CDXJ key (KeyOptions::key structured).
  keys::MissingKey missing_key = keys::MissingKey::kError;
  // JSON and CDXJ keys are taken only from records that are JSON throughout
  // (JobSpec::strict_json).
  bool strict_json = false;
  // Records per batch (any value >= 1); for Parquet input, the most rows of
  // a row group decoded at once (and at most 131,072).
  uint64_t batch_records = uint64_t{1} << 18;
  // Parquet output (Parquet input only): its codec's name ("zstd"; empty:
  // the first input's), and the most rows an output row group holds (0: no
  // limit; an output row group never holds rows of two input row groups).
  std::string parquet_compression;
  uint64_t row_group_rows = 0;
  // Threads that read, decompress, split and fingerprint text input. 1: one
  // thread reads and splits and a second fingerprints. N > 1: N workers each
  // take the next piece of the input (a range of piece_bytes of a large
  // plain file; a part of a gzip or zstd file whose members or frames
  // decode apart, when the job has fewer than 2 inputs a worker; otherwise a
  // whole input) and the filter stage takes their batches in input order,
  // so the output, the filter and the stats are the same for every N. Each
  // worker holds up to 3 batches (about 31 MiB at the default batch size
  // and 64-byte records). Fingerprint input (kU64) is always read by one
  // thread.
  unsigned read_threads = 1;
  // The records the inputs hold in all, as estimated (gdedup/
  // input_estimate.h; 0: unknown). Exact sets only (run_pipeline on a
  // KeySet): once the run has answered RoomFromSample::kSampleKeys records,
  // the set takes room for the distinct keys their share of new keys
  // predicts for the rest (RoomFromSample, within its cap) instead of
  // doubling its way there. The answers are the same either way.
  uint64_t expected_records = 0;
  // Advanced, for tests and tuning, when read_threads > 1 (any values >= 1):
  // the size of the ranges large plain files are read in (16 MiB by
  // default), and the compressed bytes a part of a compressed file holds at
  // least (4 MiB by default).
  uint64_t piece_bytes = uint64_t{16} << 20;
  uint64_t compressed_piece_bytes = uint64_t{4} << 20;
  // Advanced, for tests and tuning: plain regular files (or pieces of them)
  // with at least this many bytes are mapped into memory and their records
  // hashed and written from the mapping, instead of being copied out of the
  // page cache first (1 MiB by default; UINT64_MAX: never). A file truncated
  // while mapped fails the run as a file changed while read does.
  uint64_t min_mapped_bytes = uint64_t{1} << 20;
  // Text records longer than this (without their separator) stop the run with an
  // error naming the record, after the records before it: a file with no
  // newline must not grow memory without bound. 64 MiB, as the reader's
  // own default (io::kDefaultMaxRecordBytes).
  uint64_t max_record_bytes = uint64_t{64} << 20;
  // How messages name the options (null: the library's own names), so that
  // a refusal says what the caller's user typed.
  const OptionNames* names = nullptr;
  const OptionNames& option_names() const { return names ? *names : library_option_names(); }
  // Called on the filter thread after each batch, and once at the end.
  std::function<void(const Progress&)> on_progress;
  // Called once, when the filter first holds more keys than it was planned
  // for, with the false-positive rate now expected.
  std::function<void(uint64_t planned, double fpr_now)> on_over_capacity;
  // Called once, on the calling thread, when the run has answered its
  // whole input and written every record, just before the output takes its
  // place (its temporary file renamed over it; in parts, before the
  // manifest is written): a caller that saves more after the run (a filter
  // file) begins to put its results in place there. Not called for a run
  // that fails or stops before.
  std::function<void()> on_publish;

  // Checkpoints (docs/CHECKPOINT.md). A checkpoint is written between
  // batches to `checkpoint` ("" for none) when either interval has passed
  // since the last one (0 turns an interval off) and when `stop` becomes
  // true; it is deleted when the run completes. Writes run in the
  // background: a time interval that comes due during one waits for the
  // next batch, a record interval waits for the write to finish.
  std::string checkpoint;
  double checkpoint_every_seconds = 60;
  uint64_t checkpoint_every_records = 0;
  // Non-null: continue the run this state was saved from (load_checkpoint()).
  // The filter passed to run_pipeline must be the checkpoint's; inputs and
  // options are checked against the state and the output is cut back to the
  // saved offset before anything is written.
  const ResumeState* resume = nullptr;
  // Standard input and pipes cannot be read again, so checkpoints and resume
  // are refused for them unless the caller says the stream will be replayed
  // from its start on resume.
  bool replayable_stdin = false;
  // Leave the checkpoint file in place when the run completes, for a caller
  // that saves more state afterwards (a filter file) and removes it only then:
  // a crash between the two must still find something to resume from.
  bool keep_checkpoint = false;
  // The filter file the caller saves the filter to once the run completes
  // ("" for none). Checkpoints note it as it was when the run started
  // (FilterFileMark, gdedup/checkpoint.h; a resumed run notes what its
  // checkpoint did), so that a resume can tell whether another job saved it
  // while this one was stopped. The run itself neither reads nor writes it.
  std::string saved_filter;
  // Set (e.g. by a SIGINT/SIGTERM handler) to stop: the batch in hand is
  // finished, a checkpoint is written if checkpoints are on, and run_pipeline
  // returns with PipelineStats::interrupted set; the output is not renamed
  // into place, and its temporary file stays only if a checkpoint names it.
  const std::atomic<bool>* stop = nullptr;
};

struct PipelineStats {
  uint64_t records = 0;
  uint64_t kept = 0;       // records written (or, for kBuild, keys that were new)
  uint64_t dropped = 0;    // records not written
  uint64_t input_bytes = 0;   // uncompressed bytes of the records read
  uint64_t output_bytes = 0;
  double seconds = 0;
  bool interrupted = false;   // stopped through PipelineOptions::stop
  uint64_t checkpoints = 0;   // checkpoints written by this run
  // Records without their JSON or CDXJ key, kept or dropped by missing_key
  // (counted in kept or dropped as well).
  uint64_t missing_keys = 0;
};

// Runs the job. The backend must work on `filter`; the filter's counters are
// updated. Throws UsageError for bad key or checkpoint options, Error for
// I/O failures (the output left as it was; one streamed in place holds
// every record that precedes the failure), for
// a checkpoint write that failed (the previous checkpoint is then intact)
// and for a resume that does not match its inputs, options or output; Error
// of kind broken_pipe when the reader of the output went away.
PipelineStats run_pipeline(const PipelineOptions& options, Filter& filter, Backend& backend);

// The same on a filter that grows: checkpoints hold every layer, the growth
// rule and the keys offered, and a resume (from resume_growing_filter)
// continues with the same output and layers. on_over_capacity is not
// called (the filter grows instead).
PipelineStats run_pipeline(const PipelineOptions& options, LayeredFilter& filter);

// The same on an exact set (exact mode): each key is taken as its 84 bits
// of XXH3-128 with rules.seed, and the set grows as keys come, up to its
// cap (KeySetOptions::max_bytes; past it the run fails with Error of kind
// set_full, as on any failure). Checkpoints are set checkpoints
// (gdedup/set_file.h); a resume runs on the set its checkpoint held.
// on_over_capacity is not called.
PipelineStats run_pipeline(const PipelineOptions& options, KeySet& set, const KeyRules& rules);
// The same on an exact set in a device's memory: the same output and
// checkpoints, each checkpoint read back into a KeySet first.
PipelineStats run_pipeline(const PipelineOptions& options, GpuKeySet& set,
                           const KeyRules& rules);

}  // namespace gdedup
