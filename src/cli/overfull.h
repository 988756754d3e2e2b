// A job whose filter ended far past its plan: the promise of a lost record
// only now and then no longer holds, so the job must not exit 0, nor save
// the filter. Says how many records were probably lost and the capacity
// that would have served.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/options.h"
#include "gdedup/filter.h"
#include "gdedup/filter_merge.h"
#include "gdedup/pipeline.h"

namespace gdedup::cli {

// Exit status of a run whose filter ended far past its plan (0, 1 and 2 are
// in main.cpp, 3 in job.h).
inline constexpr int kExitOverfull = 4;

// The test of "far past its plan" is the library's (gdedup/filter_merge.h),
// shared with the Python package.
using gdedup::check_overfull;
using gdedup::kOverfullFactor;
using gdedup::Overfull;

// How a dedup's or build's filter ended, as one process and the ranks of
// an MPI job both know it.
struct FilterEnd {
  Mode mode = Mode::kDedup;
  bool growing = false;
  bool growth_refused = false;  // the newest layer was held by --no-grow or --max-memory
  std::string max_memory;       // --max-memory as given; "" when --no-grow held it
  std::string filter_path;      // "" without -f; with it, the job was to save there
  bool filter_existed = false;  // -f named a filter file that the job extended
};

// The FilterEnd of a job run with `o`.
FilterEnd filter_end(const JobOptions& o, Mode mode, bool growing, bool growth_refused,
                     bool filter_existed);

// The keys of a job that were offered to its filter but not counted new:
// the records read less the keys found new (PipelineStats::kept counts
// written records, which in --duplicates mode are the keys seen before).
uint64_t uncounted_keys(const PipelineStats& stats, Mode mode);

// The error line of the first layer (oldest first; a fixed filter is one)
// that `layers` found far past its plan, or nullopt when none is. It says
// what went wrong, what the output lacks, that the filter was not saved
// (with end.filter_path: such a filter takes new keys for old ones in
// every job that uses it) and what to run instead.
std::optional<std::string> overfull_error(const std::vector<std::optional<Overfull>>& layers,
                                          const FilterEnd& end);

// The error line of a filter whose layer `layer` (1-based, of `layers`; 0
// for a fixed filter) is far past its plan because a merge added up the
// keys of filters that each filled it. `what` names the filter ("the
// merged filter F.gdf").
std::string merged_past_plan_message(const Overfull& over, const std::string& what, size_t layer,
                                     size_t layers);

}  // namespace gdedup::cli
