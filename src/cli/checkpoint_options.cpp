#include <CLI/CLI.hpp>

#include "cli/checkpoint_options.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "cli/flags.h"
#include "cli/numbers.h"
#include "gdedup/error.h"

namespace gdedup::cli {
namespace {

constexpr const char* kExpected =
    "expected a duration such as 30s, 5m or 1h (lowercase units), a whole record count such "
    "as 1000000, 100K or 10M, or both separated by a comma";

[[noreturn]] void refuse_every(std::string_view value, const std::string& why) {
  throw UsageError(flag::kCheckpointEvery + " " + std::string(value) + ": " + why);
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
    records = parse_count(part, flag::kCheckpointEvery.name);
  } catch (const UsageError&) {
    refuse_every(part, kExpected);
  }
  if (records == 0) refuse_every(part, "must be at least 1 record");
  if (interval.records > 0) refuse_every(part, "gives a second record interval; give one");
  interval.records = records;
}

}  // namespace

void add_checkpoint_options(CLI::App& app, CheckpointOptions& options) {
  app.add_option(flag::kCheckpoint.names(), options.path,
                 "Save the filter and the run's position to FILE now and then, and on SIGINT, "
                 "SIGTERM or SIGHUP, so that an interrupted run can be resumed; removed when the run "
                 "completes")
      ->type_name("FILE")
      ->group(kGroupCheckpoints);
  app.add_option(flag::kCheckpointEvery.names(), options.every,
                 "When to checkpoint: a duration (30s, 5m, 1h; lowercase units) and/or a "
                 "record count (1000000, 100K, 10M), whichever comes first, e.g. 60s,10M. "
                 "Default 60s")
      ->type_name("INTERVAL")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->group(kGroupCheckpoints);
  app.add_flag(flag::kResume.names(), options.resume,
               "Continue the run the checkpoint was saved from: give the same command line "
               "plus " + flag::kResume)
      ->group(kGroupCheckpoints);
  app.add_flag(flag::kReplayableStdin.names(), options.replayable_stdin,
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

}  // namespace gdedup::cli
