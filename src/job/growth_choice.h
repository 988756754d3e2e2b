// Whether a job's filter grows, and how far: the choices the options make,
// shared by a job in one process and the ranks of an MPI job.
#pragma once

#include <cstdint>
#include <optional>

#include "gdedup/checkpoint.h"
#include "gdedup/filter_file.h"
#include "job/context.h"
#include "job/sizing.h"

namespace gdedup::job {

// Whether a new filter grows: a dedup or build filter, unless its size is
// fixed by an option (checkpoints hold every layer). A filter file that
// exists decides for itself. Throws UsageError for max_memory on a fixed
// one.
bool growth_chosen(const Job& job);

// An existing filter keeps its parameters: sizing options only shape new
// ones. They are accepted (a daily job can pass the same options whether or
// not the file exists yet) but a warning says so when they ask for another
// filter than the file, of `rules` and first layer `first`, holds.
void warn_ignored_sizing(const Job& job, const FilterRules& rules, const FilterParams& first);

// The limit on the bytes of a growing filter of `bytes` in `layers` layers
// (0: none): the spec's max_memory, or with no_grow (an existing file) its bytes
// now. Throws UsageError when the filter is already past max_memory.
uint64_t growth_limit(const Job& job, uint64_t bytes, size_t layers);

// Refuses (UsageError) the filter file whose header is `info` when its
// layers take more than max_memory: from its header, before it is loaded
// (dedup and build on an existing file, query). A fixed filter cannot grow
// past the cap, but it may start past it; a growing one may have grown past
// it without a cap.
void check_filter_file_cap(const Job& job, const FilterFileInfo& info);

// The growth a resumed job asks for. An existing filter file decides
// for itself: a growing one grows by its own rule, capped by max_memory or
// held at its layers by no_grow; the file is rewritten only when the job
// completes, so it is still the one the run started from.
std::optional<GrowthState> requested_growth(const Job& job, bool grows, bool filter_existed);

// A resumed job's filter must grow as the spec makes it grow, or be
// fixed as the spec makes it fixed: throws Error naming the difference.
void check_resume_growth(const Job& job, const ResumeState& saved,
                         const std::optional<GrowthState>& requested);

}  // namespace gdedup::job
