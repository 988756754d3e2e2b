// The one step that opens a job's target (gdedup/job_target.h): resumed
// from the checkpoint, read from an existing file (the query's, or the one
// a dedup or build extends) or new, with every check of the file, its cap
// and its key rules. A Bloom filter's opening is bloom_target.cpp's, an
// exact set's exact_target.cpp's.
#pragma once

#include <memory>

#include "gdedup/job_target.h"
#include "gdedup/key_rules.h"
#include "job/checkpoint_job.h"
#include "job/context.h"

namespace gdedup::job {

// What the job knows of its file (JobSpec::filter_path) as it opens it.
struct TargetFile {
  bool existed = false;
  KeyRules rules;  // what the saved file records: an existing file's own, else the job's
  FilterFileCheck check = FilterFileCheck::kUnchanged;
};

// How the target is opened.
enum class Opening { kResume, kFile, kNew };

// How the job's target is opened, with what the job knows of its file
// before: whether it exists, and the job's own key rules.
Opening how_to_open(const Job& job, TargetFile& file);

// The job's target, after the checks of job_checks.h (check_target_options),
// the inputs resolved, the files checked and locked.
std::unique_ptr<JobTarget> open_target(const Job& job);

// Each kind's opening, `file` as far as open_target found it.
std::unique_ptr<JobTarget> open_filter_target(const Job& job, Opening how, TargetFile file);
std::unique_ptr<JobTarget> open_set_target(const Job& job, Opening how, TargetFile file);

}  // namespace gdedup::job
