// What a job deduplicates against, behind one interface: a Bloom filter,
// fixed or growing, or an exact set, on the CPU or a GPU. A job opens its
// target in one step (from its checkpoint, from an existing file, or new:
// every check of the file, its cap and its key rules is made there), runs
// the pipeline on it, and ends with the target's one save; whatever the
// kind, the job asks it the same questions, so that the job's flow is
// written once (docs/ARCHITECTURE.md, "The job").
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gdedup/checkpoint.h"
#include "gdedup/filter_merge.h"
#include "gdedup/job.h"
#include "gdedup/pipeline.h"

namespace gdedup {

// How a target ended, for the job's last steps.
struct TargetEnd {
  // Each layer's Overfull, oldest first (a fixed filter has one; a set,
  // which drops no key for a false positive, none).
  std::vector<std::optional<Overfull>> layers;
  bool growing = false;
  bool growth_refused = false;  // the newest layer was held by no_grow or max_memory
  bool file_existed = false;    // the job's file existed and the job extended it
};

class JobTarget {
 public:
  virtual ~JobTarget() = default;

  // What runs it, for the console: "cpu (AVX2, 2 threads)" (on the ranks
  // of an MPI job, where each rank chooses its backend as the run makes
  // each layer, rank 0's, once the run chose it).
  virtual const std::string& description() const = 0;
  // Where a resumed job continues; null for a job that starts.
  virtual const ResumeState* resume_state() const = 0;
  // The layers of a growing filter now, for progress; 0 for any other (and
  // on ranks, whose progress shows no layers).
  virtual size_t growing_layers() const = 0;
  // Adds to the job's `options` what the target tells the pipeline itself
  // (the records to expect, what to say past the planned capacity).
  virtual void prepare_run(PipelineOptions& options) = 0;
  // Runs the pipeline of `options` on the target.
  virtual PipelineStats run(const PipelineOptions& options) = 0;
  // Once the run completed: the target's bytes back on the host and, where
  // a resume found the job's file changed, the file checked to hold
  // exactly this target (the job's own save before it stopped; Error
  // otherwise). `uncounted` keys were offered but not counted new.
  virtual TargetEnd end_run(uint64_t uncounted) = 0;
  // Sets result.filter or result.set, and result.backend.
  virtual void report(JobResult& result) const = 0;
  // Saves the target to the job's file, with the key rules that file
  // records (an existing file's own).
  virtual void save() = 0;
};

}  // namespace gdedup
