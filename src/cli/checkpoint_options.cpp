#include <CLI/CLI.hpp>

#include "cli/checkpoint_options.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "cli/numbers.h"
#include "cli/preflight.h"
#include "gdedup/error.h"

namespace gdedup::cli {
namespace {

constexpr const char* kEvery = "--checkpoint-every";
constexpr const char* kExpected =
    "expected a duration such as 30s, 5m or 1h (lowercase units), a whole record count such "
    "as 1000000, 100K or 10M, or both separated by a comma";

[[noreturn]] void refuse_every(std::string_view value, const std::string& why) {
  throw UsageError(std::string(kEvery) + " " + std::string(value) + ": " + why);
}

double unit_seconds(char unit) {
  switch (unit) {
    case 's': return 1;
    case 'm': return 60;
    case 'h': return 3600;
    default: return 0;
  }
}

// Lowercase s, m and h mark durations; everything else is a count, so "10m"
// is ten minutes and "10M" ten million records.
bool is_duration(std::string_view value) {
  return !value.empty() && unit_seconds(value.back()) > 0;
}

double parse_duration(std::string_view value) {
  const std::string number(value.substr(0, value.size() - 1));
  const bool digits_only = !number.empty() &&
                           number.find_first_not_of("0123456789.") == std::string::npos;
  char* end = nullptr;
  const double amount = digits_only ? std::strtod(number.c_str(), &end) : 0;
  if (!digits_only || end != number.c_str() + number.size() || !std::isfinite(amount)) {
    refuse_every(value, kExpected);
  }
  if (amount <= 0) refuse_every(value, "must be more than 0");
  return amount * unit_seconds(value.back());
}

// One comma-separated part, added to `interval`; a second value of the same
// kind would leave the user guessing which one counts.
void add_interval(std::string_view part, CheckpointInterval& interval) {
  if (is_duration(part)) {
    if (interval.seconds > 0) refuse_every(part, "gives a second time interval; give one");
    interval.seconds = parse_duration(part);
    return;
  }
  uint64_t records = 0;
  try {
    records = parse_count(part, kEvery);
  } catch (const UsageError&) {
    refuse_every(part, kExpected);
  }
  if (records == 0) refuse_every(part, "must be at least 1 record");
  if (interval.records > 0) refuse_every(part, "gives a second record interval; give one");
  interval.records = records;
}

void require_checkpoint(const CheckpointOptions& o, bool given, const char* option) {
  if (given && !o.enabled()) {
    throw UsageError(std::string(option) + " needs --checkpoint FILE");
  }
}

}  // namespace

void add_checkpoint_options(CLI::App& app, CheckpointOptions& options) {
  app.add_option("--checkpoint", options.path,
                 "Save the filter and the run's position to FILE now and then, and on SIGINT, "
                 "SIGTERM or SIGHUP, so that an interrupted run can be resumed; removed when the run "
                 "completes")
      ->type_name("FILE")
      ->group(kGroupCheckpoints);
  app.add_option("--checkpoint-every", options.every,
                 "When to checkpoint: a duration (30s, 5m, 1h; lowercase units) and/or a "
                 "record count (1000000, 100K, 10M), whichever comes first, e.g. 60s,10M. "
                 "Default 60s")
      ->type_name("INTERVAL")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->group(kGroupCheckpoints);
  app.add_flag("--resume", options.resume,
               "Continue the run the checkpoint was saved from: give the same command line "
               "plus --resume")
      ->group(kGroupCheckpoints);
  app.add_flag("--replayable-stdin", options.replayable_stdin,
               "Allow checkpoints with standard input as input: on resume the same bytes "
               "will be fed again from their start")
      ->group(kGroupCheckpoints);
}

CheckpointInterval parse_checkpoint_every(const std::vector<std::string>& values) {
  if (values.empty()) return CheckpointInterval{kDefaultCheckpointSeconds, 0};
  CheckpointInterval interval;
  for (const std::string& value : values) add_interval(value, interval);
  return interval;
}

void check_checkpoint_options(const CheckpointOptions& options,
                              const std::vector<std::string>& inputs, const std::string& output) {
  require_checkpoint(options, !options.every.empty(), kEvery);
  require_checkpoint(options, options.resume, "--resume");
  require_checkpoint(options, options.replayable_stdin, "--replayable-stdin");
  if (!options.enabled()) return;
  parse_checkpoint_every(options.every);
  const std::string& path = options.path;
  if (path == "-") throw UsageError("--checkpoint -: the checkpoint must be a file");
  if (output == "-") {
    throw UsageError("--checkpoint needs the output in a file (-o FILE): standard output "
                     "cannot be cut back to the checkpoint's offset when the run is resumed");
  }
  const bool reads_stdin = std::find(inputs.begin(), inputs.end(), "-") != inputs.end();
  if (options.replayable_stdin && !reads_stdin) {
    throw UsageError("--replayable-stdin has no effect: no input is standard input ('-' or "
                     "no input named); drop --replayable-stdin");
  }
  for (const std::string& input : inputs) {
    if (input == "-" && !options.replayable_stdin) {
      throw UsageError("cannot checkpoint a run that reads standard input: a resumed run "
                       "could not read it again; give the input as a file, or add "
                       "--replayable-stdin if the same bytes will be fed again on resume");
    }
  }
}

void apply_checkpoint_options(const CheckpointOptions& options, PipelineOptions& run) {
  if (!options.enabled()) return;
  const CheckpointInterval interval = parse_checkpoint_every(options.every);
  run.checkpoint = options.path;
  run.checkpoint_every_seconds = interval.seconds;
  run.checkpoint_every_records = interval.records;
  run.replayable_stdin = options.replayable_stdin;
}

}  // namespace gdedup::cli
