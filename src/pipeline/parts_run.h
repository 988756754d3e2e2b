// A job's output in parts (--output-parts, io/output_parts.h, which
// holds the folder's files): the one-process run and the checks of the
// options that parts cannot go with. Here, above the files, since both take
// the pipeline's options.
#pragma once

#include <functional>

#include "gdedup/pipeline.h"

namespace gdedup {

// A run of one process in parts: `run` with options whose output is the
// one part of this run, then the manifest and the removal of the previous
// run's parts. Without options.output_parts, `run` as it is. Throws
// UsageError for parts with checkpoints, Error as the manifest's writers do
// (the part is then removed).
PipelineStats run_in_parts(const PipelineOptions& options,
                           const std::function<PipelineStats(const PipelineOptions&)>& run);

// Refuses (UsageError) what parts cannot go with: checkpoints, a build
// (which writes no output), and `output` given as well.
void check_parts_options(const PipelineOptions& options);

}  // namespace gdedup
