// Writes checkpoints in the background. The pipeline thread only copies the
// bit arrays (or an exact set) into a snapshot (the one stall); a writer
// thread then syncs the output up to the offset the state records and
// writes the file.
// One write at a time; a failure is kept and reported by the next call.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "format/checkpoint_file.h"
#include "fs/file_ops.h"
#include "gdedup/checkpoint.h"

namespace gdedup::pipeline {

class CheckpointWriter {
 public:
  // `output` is the file whose bytes the states count, the output's
  // temporary file ("" for none); it is fsynced before each checkpoint is
  // written. `resumed` is the state a
  // resumed run started from (null for a new run): its checkpoint is the
  // one a failure falls back to. Tests make a write fail through the
  // fs::Observer (tests/failing_replacement.h).
  CheckpointWriter(std::string path, std::string output, const ResumeState* resumed);
  CheckpointWriter(const CheckpointWriter&) = delete;
  CheckpointWriter& operator=(const CheckpointWriter&) = delete;
  // Waits for a write in progress; its failure, if any, is not reported.
  ~CheckpointWriter();

  // True while a write is in progress.
  bool busy() const { return thread_.joinable() && !finished_.load(); }

  // Waits for the write in progress. Throws Error if it, or an earlier one,
  // failed, saying that the previous checkpoint is intact.
  void wait();

  // Waits for the previous write (throwing if it failed), snapshots the
  // filter's layers (one for a fixed filter; every layer, oldest first,
  // with state.growth set for a growing one) and starts writing `state`
  // with them. The output must already be flushed up to
  // state.output_offset. If no snapshot buffer can be allocated, writes
  // synchronously from the layers instead.
  void start(const std::vector<const Filter*>& layers, ResumeState state);

  // A snapshot taken on the pipeline thread, which writes the checkpoint
  // file at the path it is given (on the writer's thread).
  using Image = std::function<void(const std::string& path)>;
  // start() for any snapshot: `records` is the stream position its state
  // records (ResumeState::position.records).
  void start_image(Image image, uint64_t records);

  // Checkpoints written successfully so far.
  uint64_t written() const { return written_; }

  // Removes the checkpoint: the run has completed.
  void remove();

 private:
  void write(const Image& image, uint64_t records);

  std::string path_;
  std::string output_;
  fs::File output_file_;
  uint64_t written_ = 0;
  uint64_t last_good_records_ = 0;
  bool have_good_ = false;

  std::unique_ptr<uint32_t[]> snapshot_;
  uint64_t snapshot_words_ = 0;
  std::thread thread_;
  std::atomic<bool> finished_{false};
  std::exception_ptr failure_;
};

// Throws Error for the failed checkpoint write `failure`, saying that the
// job stopped and whether a previous checkpoint (at record *last_good, when
// not null) can be resumed from.
[[noreturn]] void throw_checkpoint_failed(const std::exception_ptr& failure,
                                          const uint64_t* last_good);

}  // namespace gdedup::pipeline
