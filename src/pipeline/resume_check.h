// Whether a run may continue from a checkpoint's state: the same options,
// the same filter, the same inputs.
#pragma once

#include <optional>
#include <vector>

#include "gdedup/checkpoint.h"
#include "gdedup/pipeline.h"

namespace gdedup::pipeline {

// The filter a run works on, as a checkpoint saves it: one fixed layer and
// no growth, or a growing filter's layers, oldest first, and its growth.
struct RunFilter {
  std::vector<const Filter*> layers;
  std::optional<GrowthState> growth;
};

// The parts of the resume state fixed for the whole run `options`
// describes: its options, its inputs' identities (identify_input) and the
// filter file it saves to (mark_filter_file; a resumed run's from its
// checkpoint).
// Throws UsageError for what a resumed run could not read or write again
// (standard output, an output or an input that is not a regular file).
ResumeState identify_run(const PipelineOptions& options);

// Throws Error naming the first option in which `options` differs from the
// run that wrote `state`, or the first input (of `now`, identified at this
// run's start) that changed; UsageError when `filter` is not the
// checkpoint's (a mistake of the caller, not of the user).
void check_resume(const ResumeState& state, const PipelineOptions& options,
                  const RunFilter& filter, const std::vector<InputIdentity>& now);
// check_resume without the filter, for a caller that made the filter from
// the checkpoint itself (the ranks of an MPI job, each holding a part).
void check_resume_run(const ResumeState& state, const PipelineOptions& options,
                      const std::vector<InputIdentity>& now);

// The words messages use for a mode (mode_name's, with the two query modes
// told apart in words: "query (present)", "query (absent)") and an input format.
const char* mode_text(Mode mode);
const char* format_name(InputFormat format);

}  // namespace gdedup::pipeline
