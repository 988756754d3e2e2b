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

// Throws Error naming the first option in which `options` differs from the
// run that wrote `state`, or the first input (of `now`, identified at this
// run's start) that changed; UsageError when `filter` is not the
// checkpoint's (a mistake of the caller, not of the user).
void check_resume(const ResumeState& state, const PipelineOptions& options,
                  const RunFilter& filter, const std::vector<InputIdentity>& now);

// The words messages use for a mode (mode_name's, with the two query modes
// told apart in words: "query (present)", "query (absent)") and an input format.
const char* mode_text(Mode mode);
const char* format_name(InputFormat format);

}  // namespace gdedup::pipeline
