// Saving and loading filters (format: docs/FORMAT.md, "Filter file").
#pragma once

#include <string>

#include "gdedup/filter.h"

namespace gdedup {

// Writes to a new `path`.tmp.XXXXXX (O_EXCL, follows no link, never shared
// with another writer), fsyncs, renames over `path`, fsyncs the folder: a
// crash leaves either the old file or the new one. Throws Error on I/O
// failure, naming the file and the reason; the old file is then untouched.
void save_filter(const Filter& filter, const std::string& path);

// Reads and verifies a filter file: magic, version, every parameter, both
// checksums and the exact length. Throws Error naming the file and what is
// wrong with it; never returns a filter from a damaged file.
Filter load_filter(const std::string& path);

// Parameters and counters only (header verified, bit array not read).
struct FilterFileInfo {
  FilterParams params;
  FilterCounters counters;
  uint32_t version;
};
FilterFileInfo read_filter_info(const std::string& path);

}  // namespace gdedup
