// Turning --capacity / --fpr / --memory / --block-bits into a Plan, and
// estimating the record count of the inputs when no capacity is given.
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

// The sizing options, parsed. Throws UsageError naming the bad value.
struct SizingRequest {
  std::optional<uint64_t> capacity;
  std::optional<uint64_t> memory;
  double fpr = kDefaultFpr;
  uint32_t block_bits = 0;
};
SizingRequest parse_sizing(const SizingOptions& options);

// Records in the inputs, assuming every one is distinct: the safe capacity.
struct RecordEstimate {
  uint64_t records = 0;
  std::string how;  // for the message: "from 1.2 GiB of input (...)"
};

// Estimates each input's records from its record density (records per file
// byte) measured at several places. Inputs up to 4 MiB are counted whole. A
// larger plain file is read in 33 windows spread from its first byte to its
// last, and each stretch between two windows is planned at the denser of
// them. A compressed one is decoded from its start over at least 8
// compressed chunks and 1,000 records (a sample of one long record says
// nothing), and the rest of it is planned at the densest chunk. nullopt when
// some input's size is unknown (a pipe, a terminal); `why_not` then names it.
// Standard input redirected from a file is sampled like a path.
std::optional<RecordEstimate> estimate_records(const std::vector<std::string>& inputs,
                                               InputFormat format, std::string* why_not);

// The plan a dedup or build run starts with. Estimates the capacity from the
// inputs when needed (saying so on the console), and throws UsageError when
// it cannot (standard input without --capacity or --memory).
Plan plan_job(const SizingRequest& request, const std::vector<std::string>& inputs,
              InputFormat format);

// The growth of a filter that starts from --capacity (or a small first
// layer when none is given) at --fpr and --block-bits.
GrowthRule growth_rule(const SizingRequest& request);

// The growth of a job's filter: from --capacity, else from the records
// estimated in the inputs, else (standard input) from the smallest first
// layer, saying on the console which.
GrowthRule plan_growth(const SizingRequest& request, const std::vector<std::string>& inputs,
                       InputFormat format);

// For `gdedup plan`: needs --capacity.
Plan plan_standalone(const SizingRequest& request);

}  // namespace gdedup::cli
