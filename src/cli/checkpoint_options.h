// --checkpoint, --checkpoint-every, --resume and --replayable-stdin for dedup
// and build (docs/CHECKPOINT.md): parsing, the checks made before any work,
// and turning them into PipelineOptions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cli/cli11_fwd.h"
#include "gdedup/pipeline.h"

namespace gdedup::cli {

inline constexpr const char* kGroupCheckpoints = "Checkpoints";

struct CheckpointOptions {
  std::string path;                // "" when checkpoints are off
  std::vector<std::string> every;  // as typed: "60s", "10M", "60s,10M"
  bool resume = false;
  bool replayable_stdin = false;

  bool enabled() const { return !path.empty(); }
};

// When a checkpoint comes due; 0 turns that interval off.
struct CheckpointInterval {
  double seconds = 0;
  uint64_t records = 0;
};

// The default when --checkpoint is given without --checkpoint-every.
inline constexpr double kDefaultCheckpointSeconds = 60;

void add_checkpoint_options(CLI::App& app, CheckpointOptions& options);

// "60s", "5m", "1.5h" (lowercase s, m, h: a duration) or "1000000", "100K",
// "10M", "1e6" (a record count, K/M/G/T powers of 1000). Values may be
// repeated or comma-separated, at most one of each kind. Throws UsageError
// naming the value.
CheckpointInterval parse_checkpoint_every(const std::vector<std::string>& values);

// Throws UsageError for options that need --checkpoint without it, and for
// standard input or output in a checkpointed run (unless --replayable-stdin
// covers the input). `output` is "" when the command writes no records.
// (That the checkpoint is none of the other files is check_written_files'.)
void check_checkpoint_options(const CheckpointOptions& options,
                              const std::vector<std::string>& inputs, const std::string& output);

// Sets checkpoint, intervals and replayable_stdin on `run` (resume and stop
// are set by the caller, which owns what they point to).
void apply_checkpoint_options(const CheckpointOptions& options, PipelineOptions& run);

}  // namespace gdedup::cli
