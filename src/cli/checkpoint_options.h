// --checkpoint, --checkpoint-every, --resume and --replayable-stdin for dedup
// and build (docs/CHECKPOINT.md) as the command takes them; cli/job_spec.cpp
// makes them the spec's JobCheckpoints.
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

}  // namespace gdedup::cli
