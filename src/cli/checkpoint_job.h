// What a checkpointed job checks before it starts and says when a signal
// stopped it, in one process or on the ranks of an MPI job alike: no
// earlier run's checkpoint is overwritten, a resume has a checkpoint, and a
// resumed command sizes the filter its checkpoint holds.
#pragma once

#include <string>

#include "cli/options.h"
#include "cli/sizing.h"
#include "gdedup/filter.h"
#include "gdedup/pipeline.h"

namespace gdedup::cli {

// Starting over would overwrite an earlier run's checkpoint at the first
// interval: throws Error when checkpoints are on and the file exists.
void refuse_existing_checkpoint(const JobOptions& o);

// A resume needs its checkpoint: throws Error when the file is missing.
void require_checkpoint(const JobOptions& o);

// Sizing options on a resumed run must describe the filter the checkpoint
// holds (`saved`): the same command line plus --resume. They are ignored, as
// on the first run, when an existing filter file gave the filter; that file
// must then still be one the checkpoint's filter could have started from.
void check_resume_sizing(const JobOptions& o, const SizingRequest& request, InputFormat format,
                         const FilterParams& saved);

// The line a job stopped by a signal at a checkpoint ends with.
std::string interrupted_line(const PipelineStats& stats, const std::string& checkpoint);

}  // namespace gdedup::cli
