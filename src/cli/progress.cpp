#include "cli/progress.h"

#include <algorithm>
#include <cstdio>
#include <unistd.h>

#include "cli/console.h"
#include "cli/numbers.h"

namespace gdedup::cli {
namespace {

constexpr auto kRedrawInterval = std::chrono::milliseconds(200);

}  // namespace

bool progress_wanted(ProgressMode mode) {
  if (mode == ProgressMode::kOn) return true;
  if (mode == ProgressMode::kOff) return false;
  return ::isatty(STDERR_FILENO) == 1;
}

std::string progress_text(const Progress& p, size_t layers) {
  std::string text = human_count(static_cast<double>(p.records)) + " records, " +
                     human_bytes(p.input_bytes) + " read";
  if (p.inputs > 1) {
    text += ", input " + group_digits(std::min(p.input + 1, p.inputs)) + " of " +
            group_digits(p.inputs);
  }
  if (layers > 0) text += ", filter of " + counted(layers, "layer");
  if (p.seconds > 0) {
    text += ", " + human_count(static_cast<double>(p.records) / p.seconds) + " records/s";
  }
  if (p.input_size > 0) {
    const double done = static_cast<double>(p.input_bytes) / static_cast<double>(p.input_size);
    char buf[16];
    std::snprintf(buf, sizeof buf, "%.1f%%", done * 100);
    text += std::string(", ") + buf;
    if (done > 0 && done < 1 && p.seconds > 0) {
      text += ", ETA " + format_duration(p.seconds * (1 - done) / done);
    }
  }
  return text;
}

void ProgressLine::update(const Progress& progress, size_t layers) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_ < kRedrawInterval) return;
  last_ = now;
  Console::get().status(progress_text(progress, layers));
}

void ProgressLine::finish() {
  if (enabled_) Console::get().clear_status();
}

}  // namespace gdedup::cli
