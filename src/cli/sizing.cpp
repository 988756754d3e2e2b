#include "cli/sizing.h"

#include <algorithm>
#include <cstdio>

#include "cli/console.h"
#include "cli/numbers.h"
#include "cli/report.h"
#include "gdedup/error.h"
#include "gdedup/input_estimate.h"

namespace gdedup::cli {
namespace {

// With --memory but no way to count the keys, the layout is chosen for a
// load typical of a 1e-4 filter.
constexpr double kAssumedBitsPerKey = 22.0;

std::string fixed(double value, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, value);
  return buf;
}

// How the estimate was made, for the message: "from 1.2 GiB of input (...)".
std::string estimate_text(const RecordEstimate& e) {
  std::string how = "from " + human_bytes(e.input_bytes) + " of input";
  if (e.counted) return how + " (counted: every input was read to its end)";
  how += " (record density measured at " + std::to_string(e.places) + " places";
  if (e.compression > 0) how += ", compressed " + fixed(e.compression, 1) + "x";
  return how + "; where they differ, the denser is planned for)";
}

}  // namespace

SizingRequest parse_sizing(const SizingOptions& options) {
  SizingRequest r;
  // With a memory budget the rate is the outcome, not a target.
  if (!options.fpr.empty() && !options.memory.empty()) {
    throw UsageError("--fpr " + options.fpr + " and --memory " + options.memory +
                     " cannot both be given: --fpr sizes the filter for a rate, --memory fixes "
                     "its size (the rate is then reported)");
  }
  if (!options.capacity.empty()) {
    r.capacity = parse_count(options.capacity, "--capacity");
    if (*r.capacity == 0) {
      throw UsageError("--capacity " + options.capacity +
                       ": must be at least 1 (the distinct keys expected)");
    }
  }
  if (!options.memory.empty()) r.memory = parse_bytes(options.memory, "--memory");
  if (!options.fpr.empty()) r.fpr = parse_fpr(options.fpr, "--fpr");
  if (r.fpr > kMaxPlannedFpr && !options.allow_high_fpr) {
    throw UsageError("--fpr " + options.fpr + " would take about " + format_percent(r.fpr) +
                     " of new keys for ones already present once the filter is full; rates "
                     "above " + format_rate(kMaxPlannedFpr) + " are refused without "
                     "--allow-high-fpr");
  }
  r.block_bits = options.block_bits;
  r.allow_high_fpr = options.allow_high_fpr;
  return r;
}

Plan plan_job(const SizingRequest& request, const std::vector<std::string>& inputs,
              InputFormat format, char separator) {
  if (request.capacity) {
    return request.memory ? plan_for_memory(*request.memory, *request.capacity, request.block_bits)
                          : plan_for_capacity(*request.capacity, request.fpr, request.block_bits);
  }
  std::string why_not;
  const std::optional<RecordEstimate> estimate = estimate_records(inputs, format, separator, &why_not);
  if (!estimate) {
    if (request.memory) {
      const double keys = static_cast<double>(*request.memory) * 8 / kAssumedBitsPerKey;
      const uint64_t assumed = std::max<uint64_t>(1, static_cast<uint64_t>(keys));
      Console::get().info("no --capacity given and the size of " + why_not +
                          " is unknown; the expected rate below assumes " + group_digits(assumed) +
                          " distinct keys");
      return plan_for_memory(*request.memory, assumed, request.block_bits);
    }
    throw UsageError("cannot size the filter: no --capacity or --memory given and the size of " +
                     why_not + " is unknown; give --capacity N (the distinct keys expected) or "
                     "--memory BYTES");
  }
  const uint64_t capacity = std::max<uint64_t>(1, estimate->records);
  Console::get().info("no --capacity given; estimated " + group_digits(estimate->records) +
                      " records " + estimate_text(*estimate) +
                      " and planned for all of them being distinct");
  return request.memory ? plan_for_memory(*request.memory, capacity, request.block_bits)
                        : plan_for_capacity(capacity, request.fpr, request.block_bits);
}

Plan plan_new_filter(const SizingRequest& request, const std::vector<std::string>& inputs,
                     InputFormat format, char separator, const std::string& filter_path) {
  const Plan plan = plan_job(request, inputs, format, separator);
  Console::get().info(plan_summary(plan) +
                      (filter_path.empty() ? "" : ", saved to " + filter_path));
  const bool refused = plan.expected_fpr > kMaxPlannedFpr && !request.allow_high_fpr;
  const bool costly = request.memory && plan.expected_fpr > 10 * kDefaultFpr;
  if (!refused && !costly) return plan;
  const std::string rate = "the new filter of " + human_bytes(plan.bytes()) + " for " +
                           group_digits(plan.capacity) + " distinct keys" +
                           (request.capacity ? "" : " (the estimate of the input)") +
                           " has an expected false-positive rate of " +
                           format_rate(plan.expected_fpr) + ": about " +
                           format_percent(plan.expected_fpr) +
                           " of new keys will be taken for ones already present";
  const Plan right = plan_for_capacity(plan.capacity, kDefaultFpr, request.block_bits);
  const std::string remedy = "; --memory " + human_bytes(right.bytes()) + " gives " +
                             format_rate(kDefaultFpr);
  if (refused) {
    throw UsageError(rate + (request.memory ? remedy : "") +
                     ". Nothing was written; add --allow-high-fpr to run with that "
                     "rate all the same");
  }
  Console::get().warn(rate + remedy);
  return plan;
}

GrowthRule growth_rule(const SizingRequest& request) {
  return growth_rule_for(request.capacity.value_or(0), request.fpr, request.block_bits);
}

GrowthRule plan_growth(const SizingRequest& request, const std::vector<std::string>& inputs,
                       InputFormat format, char separator) {
  GrowthRule rule = growth_rule(request);
  if (request.capacity) return rule;
  std::string why_not;
  const std::optional<RecordEstimate> estimate = estimate_records(inputs, format, separator, &why_not);
  if (!estimate) {
    Console::get().info("the size of " + why_not + " is unknown; the filter starts at " +
                        group_digits(rule.first_capacity) + " keys and grows as keys arrive");
    return rule;
  }
  rule = growth_rule_for(std::max<uint64_t>(1, estimate->records), request.fpr, request.block_bits);
  Console::get().info("no --capacity given; estimated " + group_digits(estimate->records) +
                      " records " + estimate_text(*estimate) + "; the filter starts there and grows if "
                      "more distinct keys arrive");
  return rule;
}

Plan plan_standalone(const SizingRequest& request) {
  if (!request.capacity) {
    throw UsageError("plan needs --capacity N (the distinct keys expected), with --fpr P or "
                     "--memory BYTES");
  }
  return request.memory ? plan_for_memory(*request.memory, *request.capacity, request.block_bits)
                        : plan_for_capacity(*request.capacity, request.fpr, request.block_bits);
}

}  // namespace gdedup::cli
