// When a checkpoint comes due (PipelineOptions::checkpoint_every_records and
// checkpoint_every_seconds): the one schedule of a run in one process and
// of the ranks of an MPI job, which takes its time from rank 0's clock.
#pragma once

#include <chrono>
#include <cstdint>

#include "gdedup/pipeline.h"

namespace gdedup::pipeline {

class CheckpointClock {
 public:
  // `records`: the run's records when it starts (a resume's, or 0).
  CheckpointClock(const PipelineOptions& options, uint64_t records)
      : every_records_(options.checkpoint_every_records),
        every_seconds_(options.checkpoint_every_seconds),
        last_records_(records),
        last_time_(Clock::now()) {}

  // The record interval has passed since the last checkpoint.
  bool records_due(uint64_t records) const {
    return every_records_ > 0 && records - last_records_ >= every_records_;
  }
  // The time interval has passed since the last checkpoint.
  bool time_due() const {
    return every_seconds_ > 0 &&
           std::chrono::duration<double>(Clock::now() - last_time_).count() >= every_seconds_;
  }
  // What the run does after a batch, the run then at `records`, with
  // `stop` asked for (PipelineOptions::stop) and the previous checkpoint
  // write still running or not (`writing`). A stop and a checkpoint wait
  // for a batch the job can resume after (`resumable`, WorkBatch::
  // resumable_after: not a Parquet slice before its row group's last). A
  // record interval is kept even if that means waiting for the previous
  // write; a time interval just comes due again later.
  enum class Next { kGoOn, kCheckpoint, kStop };
  Next after_batch(bool resumable, bool stop, uint64_t records, bool writing) const {
    if (!resumable) return Next::kGoOn;
    if (stop) return Next::kStop;
    if (records_due(records) || (time_due() && !writing)) return Next::kCheckpoint;
    return Next::kGoOn;
  }

  // A checkpoint of the run at `records` was written (or started).
  void written(uint64_t records) {
    last_records_ = records;
    last_time_ = Clock::now();
  }

 private:
  using Clock = std::chrono::steady_clock;
  uint64_t every_records_;
  double every_seconds_;
  uint64_t last_records_;
  Clock::time_point last_time_;
};

}  // namespace gdedup::pipeline
