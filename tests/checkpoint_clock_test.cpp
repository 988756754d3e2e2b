// The driver's rule after each batch (pipeline/checkpoint_clock.h): a
// checkpoint that comes due, and a stop asked for, wait for a batch the job
// can resume after (WorkBatch::resumable_after, false for a Parquet slice
// before its row group's last); record intervals are kept exactly, time
// intervals wait for the previous write.
#include "pipeline/checkpoint_clock.h"

#include <gtest/gtest.h>

#include <vector>

namespace gdedup::pipeline {
namespace {

using Next = CheckpointClock::Next;

PipelineOptions every(uint64_t records, double seconds) {
  PipelineOptions options;
  options.checkpoint_every_records = records;
  options.checkpoint_every_seconds = seconds;
  return options;
}

// Row groups of three slices, 10 rows each, a checkpoint due every 10 rows:
// a checkpoint only after each row group's last slice.
TEST(CheckpointClock, ACheckpointDueMidRowGroupWaitsForItsEnd) {
  CheckpointClock clock(every(10, 0), 0);
  std::vector<Next> got;
  uint64_t records = 0;
  for (int slice = 0; slice < 6; ++slice) {
    records += 10;
    const bool last = slice % 3 == 2;
    const Next next = clock.after_batch(last, false, records, false);
    if (next == Next::kCheckpoint) clock.written(records);
    got.push_back(next);
  }
  EXPECT_EQ(got, (std::vector<Next>{Next::kGoOn, Next::kGoOn, Next::kCheckpoint, Next::kGoOn,
                                    Next::kGoOn, Next::kCheckpoint}));
}

TEST(CheckpointClock, AStopMidRowGroupFinishesTheRowGroupFirst) {
  CheckpointClock clock(every(0, 0), 0);
  EXPECT_EQ(clock.after_batch(false, true, 10, false), Next::kGoOn);
  EXPECT_EQ(clock.after_batch(false, true, 20, false), Next::kGoOn);
  EXPECT_EQ(clock.after_batch(true, true, 30, false), Next::kStop);
  // Batches of records can always be resumed after.
  EXPECT_EQ(clock.after_batch(true, false, 30, false), Next::kGoOn);
}

TEST(CheckpointClock, RecordIntervalsWaitForAWriteAndTimeIntervalsDoNot) {
  CheckpointClock by_records(every(5, 0), 100);
  EXPECT_EQ(by_records.after_batch(true, false, 104, false), Next::kGoOn);
  EXPECT_EQ(by_records.after_batch(true, false, 105, true), Next::kCheckpoint);
  // Due at once: the interval is a tiny fraction of a second.
  CheckpointClock by_time(every(0, 1e-9), 0);
  EXPECT_EQ(by_time.after_batch(true, false, 1, true), Next::kGoOn);
  EXPECT_EQ(by_time.after_batch(true, false, 1, false), Next::kCheckpoint);
  EXPECT_EQ(by_time.after_batch(false, false, 1, false), Next::kGoOn);
}

}  // namespace
}  // namespace gdedup::pipeline
