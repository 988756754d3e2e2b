// The steps a job takes alike in one process (run_job.cpp) and as the
// ranks of an MPI job (rank_job.cpp): one skeleton, so that the two differ
// only in how their filter is held and their batches flow.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gdedup/filter_merge.h"
#include "gdedup/frontend/job_files.h"
#include "gdedup/job_target.h"
#include "gdedup/key_rules.h"
#include "job/context.h"

namespace gdedup::job {

// Resolves the spec's inputs into job.inputs and checks each can be read;
// returns how many were left out (skip_missing).
uint64_t resolve_and_check_inputs(Job& job);

// The pipeline options of the job: everything but the filter's callbacks,
// the resume state and the stop flag, which the driver owns. The job's
// events hear when it begins to put its results in place
// (JobEvents::publishing).
PipelineOptions pipeline_options(const Job& job);

// Takes the locks of the files the job writes (held until the job ends).
FileLocks lock_files(const Job& job);

// The key rules the saved filter records: an existing file's own where it
// records them (it was made by them), else the job's.
KeyRules saved_key_rules(const Job& job, bool filter_existed);

// How a job that ran its filter to the end finishes: the end of its filter
// judged (`layers`: each layer's Overfull, oldest first), the filter saved
// through `save` unless it ended far past its plan, the checkpoint removed
// (where `remove_checkpoint`: the rank that owns it), the statistics file
// written (where `write_stats`), and `result`'s status set; each step noted
// in job.published as it is done.
struct JobEnding {
  std::vector<std::optional<Overfull>> layers;
  bool growing = false;
  bool growth_refused = false;
  bool filter_existed = false;
  std::function<void()> save;
  bool remove_checkpoint = true;
  bool write_stats = true;
};
void finish_job(Job& job, const JobEnding& ending, JobResult& result);

// The ending of a job whose `target` ended as `end`: saved by the target's
// own save.
JobEnding ending_of(JobTarget& target, const TargetEnd& end);

// Runs the job's pipeline (`run`) into result.stats, as every job in one
// process does: a closed output ends the job quietly (kOutputClosed; then
// false) or fails it (closed_output_is_failure); any other failure is told
// with the aftermath, but for a resume refused before its first batch
// (`began` still false), which changed nothing; a stop at a checkpoint
// makes the result kInterrupted (then false). True: the run completed, and
// its output holds the job's result (job.published.output).
bool run_stream(Job& job, JobResult& result, bool resumed, const bool& began,
                const std::function<PipelineStats()>& run);

// The result's counts before the run: inputs, resume point, checkpoints.
JobResult start_result(const Job& job, uint64_t inputs_skipped, const ResumeState* resume);

// Appended to an error that struck after work began, so the user knows what
// the files now hold.
std::string aftermath(const Job& job);

// "set file" or "filter": what the job saves to JobSpec::filter_path, in
// messages.
std::string saved_file_word(const JobSpec& spec);

// The failure of a job whose output's reader went away (`| head`) and that
// was to save a filter or statistics: a filter saved then would hold the
// keys of records nobody received, and tomorrow's run would drop them as
// seen; so nothing is saved and the job fails (Error). Without either, the
// job ends quietly (JobStatus::kOutputClosed).
bool closed_output_is_failure(const JobSpec& spec);
std::string closed_pipe_text(const Job& job);

}  // namespace gdedup::job
