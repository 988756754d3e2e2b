// A job whose filter ended far past its plan: the promise of a lost record
// only now and then no longer holds, so the job must not exit 0, nor save
// the filter. Says how many records were probably lost and the capacity
// that would have served.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "job/context.h"
#include "gdedup/filter.h"
#include "gdedup/filter_merge.h"
#include "gdedup/pipeline.h"

namespace gdedup::job {

// How a dedup's or build's filter ended, as one process and the ranks of
// an MPI job both know it.
struct FilterEnd {
  const Job* job = nullptr;
  Mode mode = Mode::kDedup;
  bool growing = false;
  bool growth_refused = false;  // the newest layer was held by no_grow or max_memory
  std::string filter_path;      // "" for none; else the job was to save there
  bool filter_existed = false;  // filter_path named a file that the job extended
};

FilterEnd filter_end(const Job& job, bool growing, bool growth_refused, bool filter_existed);

// The keys of a job that were offered to its filter but not counted new:
// the records read less the keys found new (PipelineStats::kept counts
// written records, which in duplicates mode are the keys seen before), and
// less the records without their key (`missing` their policy), which never
// reach the filter.
uint64_t uncounted_keys(const PipelineStats& stats, Mode mode, keys::MissingKey missing);

// The error line of the first layer (oldest first; a fixed filter is one)
// that `layers` found far past its plan, or nullopt when none is. It says
// what went wrong, what the output lacks, that the filter was not saved
// (with end.filter_path: such a filter takes new keys for old ones in
// every job that uses it) and what to run instead.
std::optional<std::string> overfull_error(const std::vector<std::optional<Overfull>>& layers,
                                          const FilterEnd& end);

}  // namespace gdedup::job
