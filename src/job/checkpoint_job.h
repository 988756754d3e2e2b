// What a checkpointed job checks before it starts and says when a signal
// stopped it, in one process or on the ranks of an MPI job alike: no
// earlier run's checkpoint is overwritten, a resume has a checkpoint, reads
// the inputs the job read, sizes the filter its checkpoint holds and saves
// it over no filter file another job saved while this one was stopped.
#pragma once

#include <functional>
#include <string>

#include "job/context.h"
#include "job/sizing.h"
#include "gdedup/filter.h"
#include "gdedup/filter_file.h"
#include "gdedup/live_filter.h"
#include "gdedup/pipeline.h"

namespace gdedup::job {

// A run that starts over would overwrite an earlier run's checkpoint at the
// first interval, whatever filter or set it takes: throws Error when
// checkpoints are on, the run does not resume and the file exists.
void refuse_existing_checkpoint(const Job& job);

// Throws UsageError for checkpoint options that need a checkpoint file
// without one, for a checkpoint that is standard output, and for standard
// input or output in a checkpointed run (unless replayable_stdin covers
// the input). (That the checkpoint is none of the other files is
// check_written_files'.)
void check_checkpoint_options(const Job& job);

// Sizing options on a resumed run must describe the filter the checkpoint
// holds (`saved`): the same spec, resumed. They are ignored, as
// on the first run, when an existing filter file gave the filter; that file
// must then still be one the checkpoint's filter could have started from.
void check_resume_sizing(const Job& job, const FilterParams& saved);

// What a resume found of the filter file it will save to
// (docs/CHECKPOINT.md, "The filter file").
enum class FilterFileCheck {
  kUnchanged,     // as the job found it when it started: the resume saves over it
  kCompareAtEnd,  // changed, perhaps by the job's own save: see require_own_filter_file
};

// The checks of a resume made from the checkpoint's state alone, before its
// filter is loaded or the spec's sizing is compared with it: the
// checkpoint exists (require_checkpoint), the inputs are the checkpoint's
// by count, path and size (a first layer estimated from other inputs would
// differ for that reason alone), and, when the job saves its filter to filter_path
// (`saves_filter`), the file there is the one the job started from, or
// none as then. A file that changed while the job was stopped is refused,
// naming what became of it, unless the job may have been stopped after it
// had saved it itself (it had renamed its output, or it builds and writes
// none): then, where `may_compare_at_end`, kCompareAtEnd.
FilterFileCheck check_resume_files(const Job& job, bool saves_filter, bool may_compare_at_end);
// The same with the checkpoint's state read (a set checkpoint's, loaded
// whole), once require_checkpoint found it.
FilterFileCheck check_resume_files(const Job& job, const ResumeState& saved, bool saves_filter,
                                   bool may_compare_at_end);
// The checkpoint file exists (Error otherwise, naming it).
void require_checkpoint(const Job& job);

// For kCompareAtEnd, once the run completed, before the filter is saved:
// returns when the file at o.filter_path holds exactly the filter the job
// ended with and `rules` (the job's own save before it was stopped: saving
// again changes nothing); otherwise throws Error saying the file was left
// as another job saved it. The filter's bytes must be on the host.
void require_own_filter_file(const Job& job, const LiveFilter& filter, const KeyRules& rules);
// The same for any kind of file: `holds_own` says whether the file at
// filter_path holds what the job ended with (it may throw Error for a file
// this job could not have saved).
void require_own_file(const Job& job, const std::function<bool()>& holds_own);

// The line a job stopped by a signal at a checkpoint ends with: "interrupted
// by SIGTERM at record 1,140,000; checkpoint saved to ..." (the cause as
// JobEvents::stop_cause gives it).
std::string interrupted_line(const Job& job, const PipelineStats& stats);

}  // namespace gdedup::job
