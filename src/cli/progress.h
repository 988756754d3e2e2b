// The progress line: records, bytes, rate, and percentage and ETA when the
// input size is known. Shown on a terminal unless --no-progress, redrawn at
// most five times a second so a fast run does not spend its time on stderr.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

#include "cli/options.h"
#include "gdedup/pipeline.h"

namespace gdedup::cli {

// kAuto: when stderr is a terminal.
bool progress_wanted(ProgressMode mode);

// "12.3M records, 1.20 GiB read, 3.40M records/s, 45.0%, ETA 0:12", with
// ", filter of 9 layers" after "read" when `layers` > 0 (a growing filter).
std::string progress_text(const Progress& progress, size_t layers = 0);

class ProgressLine {
 public:
  explicit ProgressLine(bool enabled) : enabled_(enabled) {}
  // From the pipeline's on_progress callback.
  // From the pipeline's on_progress callback; `layers` > 0 for a growing
  // filter.
  void update(const Progress& progress, size_t layers = 0);
  // Erases the line: the summary or an error takes its place.
  void finish();

 private:
  bool enabled_;
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace gdedup::cli
