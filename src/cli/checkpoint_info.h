// `gdedup info` on a checkpoint: the job it belongs to, how far that job
// got, and its filter or set, described like a filter file's or a set file's.
#pragma once

#include <string>

#include "gdedup/checkpoint.h"
#include "gdedup/frontend/filter_report.h"
#include "gdedup/frontend/json.h"
#include "gdedup/set_file.h"

namespace gdedup::cli {

// The text lists every input only with `all_inputs` or when there are a
// few; otherwise their count, the first and last few and the one the job
// stopped in. The JSON always lists every path.
std::string checkpoint_info_text(const std::string& path, const Checkpoint& checkpoint,
                                 bool all_inputs);
JsonObject checkpoint_info_json(const std::string& path, const Checkpoint& checkpoint);

// The same for a checkpoint of a job with --exact (`checkpoint` read by
// summarize_set, with its state): the job, then its set.
std::string set_checkpoint_info_text(const std::string& path, const SetFileSummary& checkpoint,
                                     bool all_inputs);
JsonObject set_checkpoint_info_json(const std::string& path, const SetFileSummary& checkpoint);

}  // namespace gdedup::cli
