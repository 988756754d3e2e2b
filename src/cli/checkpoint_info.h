// `gdedup info` on a checkpoint: the job it belongs to, how far that job
// got, and its filter, described like a filter file's.
#pragma once

#include <string>

#include "cli/json.h"
#include "cli/report.h"
#include "gdedup/checkpoint.h"

namespace gdedup::cli {

std::string checkpoint_info_text(const std::string& path, const Checkpoint& checkpoint,
                                 const FilterState& state);
JsonObject checkpoint_info_json(const std::string& path, const Checkpoint& checkpoint,
                                const FilterState& state);

}  // namespace gdedup::cli
