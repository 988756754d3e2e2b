// A job whose filter ended far past its plan: the promise of a lost record
// only now and then no longer holds, so the job must not exit 0. Says how
// many records were probably lost and the capacity that would have served.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

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

// The error line: what went wrong, what the output lacks (by mode), and
// what to run instead. `existing_filter`: the job extended a filter file,
// whose size the sizing options cannot change.
std::string overfull_message(const Overfull& over, Mode mode, bool existing_filter);

// The error line of a filter whose layer `layer` (1-based, of `layers`; 0
// for a fixed filter) is far past its plan because a merge added up the
// keys of filters that each filled it: a layer before the newest never
// takes in more than planned by itself, and none can grow. `what` names
// the filter ("the filter F.gdf", "the merged filter F.gdf"); `mode`, of a
// job that used it, says what its output lacks.
std::string merged_past_plan_message(const Overfull& over, const std::string& what, size_t layer,
                                     size_t layers, std::optional<Mode> mode);

// The error line of a growing filter whose newest layer ended far past its
// plan because --max-memory (as the user gave it; "" for --no-grow, which
// held a growing filter file at its layers) refused the next layer.
std::string growth_limit_message(const Overfull& over, Mode mode, const std::string& max_memory,
                                 size_t layers);

}  // namespace gdedup::cli
