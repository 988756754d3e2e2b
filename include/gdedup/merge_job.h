// A merge, described once as a typed value and run by the library, as
// run_job runs the other jobs (gdedup/job.h): `gdedup merge` and any other
// front end map their own words to a MergeSpec, hear the merge through
// JobEvents (its notes, and the names of its options in messages), and map
// its MergeResult (or its gdedup::Error) back to their own words.
//
//   MergeSpec spec;
//   spec.inputs = {"monday.gdf", "tuesday.gdf"};
//   spec.output = "week.gdf";  // may be one of the inputs
//   JobEvents quiet;           // says nothing, names options plainly
//   MergeResult result = run_merge_job(spec, quiet);
//
// Bloom filters merge by OR, layer by layer (their parameters and key rules
// must agree: merged_rules, filter_merge.h); the exact sets of exact mode
// merge into their union (docs/CLI.md, "merge"). A set and a Bloom filter
// are never merged.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gdedup/filter_merge.h"
#include "gdedup/filter_summary.h"
#include "gdedup/job.h"

namespace gdedup {

struct MergeSpec {
  std::vector<std::string> inputs;  // filter files, or set files: at least two, of one kind
  // Replaced once the merge is complete, through a temporary file; it may
  // be one of the inputs, or a file of their kind, but no file of another.
  std::string output;
  // The most bytes the merged filter or set may take; 0 for no cap. A
  // filter's size is known from its inputs' headers; a set's union is
  // capped as it is made.
  uint64_t max_memory = 0;
  // Merge inputs whose keys were made by different rules (key, delimiter,
  // normalization, record separator; never another hash seed): the result
  // records the first one's.
  bool ignore_key_rules = false;
};

enum class MergeStatus {
  kComplete,
  // The merged filter or set would pass max_memory: nothing was written
  // (an existing output is as it was); `message` says what takes how much.
  kPastMaxMemory,
  // The merged filter was saved, but a layer of it holds the keys of inputs
  // that each filled it, far past its plan; `message` says which.
  kOverfull,
};

struct MergeResult {
  MergeStatus status = MergeStatus::kComplete;
  std::string message;  // for kPastMaxMemory and kOverfull
  bool saved = false;   // the output holds the merge (kComplete and kOverfull)
  uint64_t inputs = 0;
  bool sets = false;  // the inputs were exact sets (their union), not Bloom filters (their OR)
  FilterSummary filter;           // the merged filter, once saved (none for sets)
  std::optional<SetSummary> set;  // the union, once saved
  std::optional<OverfullLayer> overfull;  // kOverfull: the oldest layer far past its plan
};

// Checks the output (writable, and replacing only an input or a file of the
// inputs' kind) and locks it for the merge, reads every input's header and
// refuses a mismatch before any bit array or key is read, then merges and
// saves. Notes (an input that records no key rules, a wait for the output's
// lock) go to `events.info`. Throws UsageError for a merge that can never
// work as given (in `events`' words), Error with its ErrorKind for a
// failure (a damaged input, an unwritable output); the output is then as it
// was.
MergeResult run_merge_job(const MergeSpec& spec, JobEvents& events);

// The line that says what a saved merge holds: "merged 3 filters into
// F.gdf: 12.3% of bits set, ~N distinct keys, FPR now R", or "merged 2 sets
// into S.gds: N distinct keys, collision chance C".
std::string merge_summary_line(const MergeSpec& spec, const MergeResult& result);

}  // namespace gdedup
