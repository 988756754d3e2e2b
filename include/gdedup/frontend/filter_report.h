// How plans and filters are described to people (text) and programs (JSON):
// `gdedup plan`, `gdedup info`, and the plan line a job prints before work.
#pragma once

#include <string>
#include <vector>

#include "gdedup/filter.h"
#include "gdedup/filter_file.h"
#include "gdedup/filter_merge.h"
#include "gdedup/filter_summary.h"
#include "gdedup/frontend/json.h"
#include "gdedup/growth.h"
#include "gdedup/layered_filter.h"
#include "gdedup/option_names.h"
#include "gdedup/planner.h"
#include "gdedup/set_file.h"

namespace gdedup {

// `target_fpr` < 0 when the plan came from a memory budget.
std::string plan_text(const Plan& plan, double target_fpr);
JsonObject plan_json(const Plan& plan, double target_fpr);

// The schedule of a growing filter: layers, memory and compound FPR at
// each point.
std::string growth_text(const GrowthRule& rule, const std::vector<GrowthPoint>& points);
JsonObject growth_json(const GrowthRule& rule, const std::vector<GrowthPoint>& points);

// One line: "filter 2.62 GiB (512-bit blocks, k = 16, ...): expected FPR ..."
std::string plan_summary(const Plan& plan);
// The same for a new growing filter: its first layer and how it grows.
std::string growth_summary(const GrowthRule& rule);
// The same for a filter loaded from `path`.
std::string filter_summary(const Filter& filter, const std::string& path);
std::string filter_summary(const LayeredFilter& filter, const std::string& path);

// The rows and JSON members that describe one layer, or a fixed filter
// (layout to planned).
std::string filter_rows(const FilterParams& params, const FilterSummary& summary);
JsonObject& add_filter_fields(JsonObject& o, const FilterParams& params,
                              const FilterSummary& summary);

// The same for a whole filter, fixed or growing (its layers, oldest first),
// for filter files and checkpoints alike. Text: a fixed filter's rows, or a
// growing one's totals followed by each layer's rows under "layer N:". JSON:
// the members of docs/CLI.md, "info", over the whole filter, and "layers",
// an array of each layer's.
std::string whole_filter_rows(const std::vector<const Filter*>& layers);
JsonObject& add_whole_filter_fields(JsonObject& o, const std::vector<const Filter*>& layers);

// The version of the JSON that `info --json` prints ("info_version"): 2
// since its top-level filter members describe the whole filter rather than
// a growing filter's first layer, and "layers" is an array.
inline constexpr uint64_t kInfoJsonVersion = 2;

// The key rules a filter file records, or why there are none.
std::string key_rules_text(const FilterRules& rules, uint32_t version);

// What `gdedup info` shows of a filter file: version, key rules, growth
// rule, and each layer.
std::string info_text(const std::string& path, const FilterFile& file);
JsonObject info_json(const std::string& path, const FilterFile& file);

// What `gdedup info` shows of an exact set (docs/CLI.md, "info"): its
// keys, the bytes a key in the file and in memory once loaded, its load
// and the chance that two of its keys collide, from the file read without
// its set (summarize_set). set_rows and add_set_fields serve set files and
// set checkpoints alike. The text's kind row names the option that makes a
// set as `names` says it (the command's "--exact").
std::string set_rows(const SetFileSummary& set);
JsonObject& add_set_fields(JsonObject& o, const SetFileSummary& set);
std::string set_info_text(const std::string& path, const SetFileSummary& file,
                          const OptionNames& names);
JsonObject set_info_json(const std::string& path, const SetFileSummary& file);

// What `gdedup plan --exact` shows: the memory a set takes at `keys` keys
// (grown from small, as a job grows it), bytes a key, and the collision
// chance there.
std::string set_plan_text(uint64_t keys);
JsonObject set_plan_json(uint64_t keys);

// One row of `info` and `plan` text: the name padded to a column, the value
// with the bytes that do not print escaped (fs::printable: paths).
std::string row(const std::string& name, const std::string& value);
// "512-bit blocks, k = 16"
std::string layout_text(const Layout& layout);

// "3 layers"; "1 layer".
std::string layers_text(size_t layers);

// "planned for N distinct keys, it `took` about M, so its false-positive
// rate is now R (planned P)", for a filter far past its plan.
std::string past_plan(const Overfull& over, const char* took);

// The error line of a filter whose layer `layer` (1-based, of `layers`; 0
// for a fixed filter) is far past its plan because a merge added up the
// keys of filters that each filled it. `what` names the filter ("the
// merged filter F.gdf").
std::string merged_past_plan_message(const Overfull& over, const std::string& what, size_t layer,
                                     size_t layers);

}  // namespace gdedup
