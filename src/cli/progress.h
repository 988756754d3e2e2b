// The progress line: records, bytes, rate, and percentage and ETA when the
// input size is known. Shown on a terminal unless --no-progress, redrawn at
// most five times a second so a fast run does not spend its time on stderr.
#pragma once

#include <chrono>
#include <string>

#include "cli/options.h"
#include "gdedup/pipeline.h"

namespace gdedup::cli {

// kAuto: when stderr is a terminal.
bool progress_wanted(ProgressMode mode);

// "12.3M records, 1.20 GiB read, 3.40M records/s, 45.0%, ETA 0:12"
std::string progress_text(const Progress& progress);

class ProgressLine {
 public:
  explicit ProgressLine(bool enabled) : enabled_(enabled) {}
  // From the pipeline's on_progress callback.
  void update(const Progress& progress);
  // Erases the line: the summary or an error takes its place.
  void finish();

 private:
  bool enabled_;
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace gdedup::cli
