// Turning --capacity / --fpr / --memory / --block-bits into a Plan, with the
// library's record estimate (gdedup/input_estimate.h) when no capacity is
// given.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/options.h"
#include "gdedup/pipeline.h"
#include "gdedup/growth.h"
#include "gdedup/planner.h"

namespace gdedup::cli {

inline constexpr double kDefaultFpr = 1e-4;
// A new filter planned to a rate above this drops most unique records: it
// is refused without --allow-high-fpr.
inline constexpr double kMaxPlannedFpr = 0.5;

// The sizing options, parsed. Throws UsageError naming the bad value.
struct SizingRequest {
  std::optional<uint64_t> capacity;
  std::optional<uint64_t> memory;
  double fpr = kDefaultFpr;
  uint32_t block_bits = 0;
  bool allow_high_fpr = false;
};
SizingRequest parse_sizing(const SizingOptions& options);

// The plan a dedup or build run starts with. Estimates the capacity from the
// inputs when needed (saying so on the console), and throws UsageError when
// it cannot (standard input without --capacity or --memory).
Plan plan_job(const SizingRequest& request, const std::vector<std::string>& inputs,
              InputFormat format, char separator);

// The growth of a filter that starts from --capacity (or a small first
// layer when none is given) at --fpr and --block-bits.
GrowthRule growth_rule(const SizingRequest& request);

// The growth of a job's filter: from --capacity, else from the records
// estimated in the inputs, else (standard input) from the smallest first
// layer, saying on the console which.
GrowthRule plan_growth(const SizingRequest& request, const std::vector<std::string>& inputs,
                       InputFormat format, char separator);

// The plan of a job's new fixed filter (plan_job), said on the console
// (with `filter_path`, where it will be saved). A plan whose expected rate
// is above kMaxPlannedFpr is refused (UsageError) without --allow-high-fpr,
// and one that --memory holds above ten times the default rate is warned
// of even under -q: it drops unique records at that rate.
Plan plan_new_filter(const SizingRequest& request, const std::vector<std::string>& inputs,
                     InputFormat format, char separator, const std::string& filter_path);

// For `gdedup plan`: needs --capacity.
Plan plan_standalone(const SizingRequest& request);

}  // namespace gdedup::cli
