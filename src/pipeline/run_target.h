// What the driver answers batches with: a Bloom filter, fixed or growing,
// through its backend (filter_target.cpp), or the exact set of exact mode
// (set_target.cpp). The driver reads, writes and checkpoints alike for all.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "gdedup/backend.h"
#include "gdedup/checkpoint.h"
#include "gdedup/gpu.h"
#include "gdedup/key_rules.h"
#include "gdedup/key_set.h"
#include "gdedup/pipeline.h"
#include "pipeline/batch_hasher.h"
#include "pipeline/checkpoint_writer.h"
#include "pipeline/work_batch.h"

namespace gdedup::pipeline {

class RunTarget {
 public:
  virtual ~RunTarget() = default;

  // How the front end fingerprints keys for this target.
  virtual KeyHashing hashing() const = 0;
  // The host memory the batches' arrays are taken from; null: plain memory.
  virtual const Backend* memory() const = 0;

  // Fill batch.answers (sized) for the batch's `n` records: whether each
  // was seen before, sequentially, adding it; returns the new ones.
  virtual uint64_t test_and_set(WorkBatch& batch, uint64_t n) = 0;
  // Whether each is in the filter or set; nothing is added.
  virtual void contains(WorkBatch& batch, uint64_t n) = 0;

  // Throws Error when `state` is not a checkpoint of a run like `options`
  // on this target (gdedup/pipeline.h: check_resume).
  virtual void check_resume(const ResumeState& state, const PipelineOptions& options,
                            const std::vector<InputIdentity>& now) const = 0;
  // Snapshots the target on the pipeline thread and has `writer` write it
  // with `state` in the background.
  virtual void checkpoint(CheckpointWriter& writer, ResumeState state) = 0;
  // After each batch, with the run's counts so far (a resumed run's
  // included): a fixed filter past its plan warns once; an exact set takes
  // room for the keys the records so far predict (PipelineOptions::
  // expected_records).
  virtual void after_batch(const PipelineOptions& options, const PipelineStats& stats) {
    (void)options;
    (void)stats;
  }
};

// A fixed filter and its backend, or (with `layered`, whose first layer
// `filter` is and whose view `backend` is) a growing one.
std::unique_ptr<RunTarget> filter_target(Filter& filter, Backend& backend,
                                         LayeredFilter* layered);
// An exact set, its keys made by `rules`: on the CPU, or in a device's
// memory (each checkpoint read back into a KeySet).
std::unique_ptr<RunTarget> set_target(KeySet& set, const KeyRules& rules);
std::unique_ptr<RunTarget> set_target(GpuKeySet& set, const KeyRules& rules);

}  // namespace gdedup::pipeline
