#include "job/sizing.h"

#include <algorithm>
#include <cstdio>

#include "gdedup/error.h"
#include "gdedup/frontend/filter_report.h"
#include "gdedup/frontend/number_text.h"
#include "pipeline/input_estimate.h"

namespace gdedup::job {
namespace {

// With a memory budget but no way to count the keys, the layout is chosen for a
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


// With a memory budget and no count of the keys, the rate reported assumes
// the load typical of a filter of the default rate.
uint64_t assumed_keys(uint64_t memory) {
  const double keys = static_cast<double>(memory) * 8 / kAssumedBitsPerKey;
  return std::max<uint64_t>(1, static_cast<uint64_t>(keys));
}

// Refuses (UsageError) a plan whose expected rate is above kMaxPlannedFpr
// unless allow_high_fpr, and warns of one that a memory budget holds above
// ten times the default rate: it drops unique records at that rate.
// `estimated`: the capacity is the estimate of the input.
void check_plan(const Plan& plan, const JobSizing& request, bool estimated, JobEvents& events) {
  const bool refused = plan.expected_fpr > kMaxPlannedFpr && !request.allow_high_fpr;
  const bool costly = request.memory && plan.expected_fpr > 10 * kDefaultFpr;
  if (!refused && !costly) return;
  const std::string rate = "the new filter of " + human_bytes(plan.bytes()) + " for " +
                           group_digits(plan.capacity) + " distinct keys" +
                           (estimated ? " (the estimate of the input)" : "") +
                           " has an expected false-positive rate of " +
                           format_rate(plan.expected_fpr) + ": about " +
                           format_percent(plan.expected_fpr) +
                           " of new keys will be taken for ones already present";
  const Plan right = plan_for_capacity(plan.capacity, kDefaultFpr, request.block_bits.value_or(0));
  const std::string remedy = "; " + events.with(JobOption::kMemory, human_bytes(right.bytes())) +
                             " gives " + format_rate(kDefaultFpr);
  if (refused) {
    throw UsageError(rate + (request.memory ? remedy : "") +
                     ". Nothing was written; add " + events.name(JobOption::kAllowHighFpr) +
                     " to run with that rate all the same");
  }
  events.warn(rate + remedy);
}

}  // namespace

Plan plan_job(const Job& job) {
  const JobSizing& request = job.spec.sizing;
  const std::string capacity_word = job.name(JobOption::kCapacity);
  const std::string memory_word = job.name(JobOption::kMemory);
  if (request.capacity) return plan_for_keys(request, *request.capacity);
  std::string why_not;
  const std::optional<RecordEstimate> estimate = estimate_records(
      job.inputs, job.spec.format, job.spec.record_separator, &why_not);
  if (!estimate) {
    if (request.memory) {
      const uint64_t assumed = assumed_keys(*request.memory);
      job.events.info("no " + capacity_word + " given and the size of " + why_not +
                      " is unknown; the expected rate below assumes " + group_digits(assumed) +
                      " distinct keys");
      return plan_for_keys(request, assumed);
    }
    throw UsageError("cannot size the filter: no " + capacity_word + " or " + memory_word +
                     " given and the size of " + why_not + " is unknown; give " +
                     job.events.with(JobOption::kCapacity, "N") + " (the distinct keys "
                     "expected) or " + job.events.with(JobOption::kMemory, "BYTES"));
  }
  job.events.info("no " + capacity_word + " given; estimated " + group_digits(estimate->records) +
                  " records " + estimate_text(*estimate) +
                  " and planned for all of them being distinct");
  return plan_for_keys(request, std::max<uint64_t>(1, estimate->records));
}

Plan plan_new_filter(const Job& job) {
  const Plan plan = plan_job(job);
  job.events.info(plan_summary(plan) +
                  (job.spec.filter_path.empty() ? "" : ", saved to " + job.spec.filter_path));
  check_plan(plan, job.spec.sizing, !job.spec.sizing.capacity, job.events);
  return plan;
}

GrowthRule plan_growth(const Job& job) {
  const JobSizing& request = job.spec.sizing;
  GrowthRule rule = growth_rule(request);
  if (request.capacity) return rule;
  std::string why_not;
  const std::optional<RecordEstimate> estimate = estimate_records(
      job.inputs, job.spec.format, job.spec.record_separator, &why_not);
  if (!estimate) {
    job.events.info("the size of " + why_not + " is unknown; the filter starts at " +
                        group_digits(rule.first_capacity) + " keys and grows as keys arrive");
    return rule;
  }
  rule = growth_rule_for(std::max<uint64_t>(1, estimate->records), request.rate(),
                         request.block_bits.value_or(0));
  job.events.info("no " + job.name(JobOption::kCapacity) + " given; estimated " +
                  group_digits(estimate->records) + " records " + estimate_text(*estimate) +
                  "; the filter starts there and grows if more distinct keys arrive");
  return rule;
}

uint64_t expected_records_for_set(const Job& job) {
  if (job.spec.sizing.capacity || job.spec.kind == JobKind::kQuery) return 0;
  std::string why_not;
  const std::optional<RecordEstimate> estimate = estimate_records(
      job.inputs, job.spec.format, job.spec.record_separator, &why_not);
  if (!estimate) {
    job.events.info("the size of " + why_not +
                    " is unknown; the set starts small and doubles as keys arrive");
    return 0;
  }
  // Inputs no larger than the sample: the set grows to them at once.
  if (estimate->records <= RoomFromSample::kSampleKeys) return 0;
  job.events.info("no " + job.name(JobOption::kCapacity) + " given; estimated " +
                  group_digits(estimate->records) + " records " + estimate_text(*estimate) +
                  "; from its first " + group_digits(RoomFromSample::kSampleKeys) +
                  " records on, the set takes room ahead of the keys for the distinct keys the "
                  "records read predict (at most " + std::to_string(RoomFromSample::kMaxStep) +
                  " times the keys it holds at a time), and doubles if more arrive");
  return estimate->records;
}

}  // namespace gdedup::job

namespace gdedup {

Plan plan_for_keys(const JobSizing& sizing, uint64_t keys) {
  const uint32_t block_bits = sizing.block_bits.value_or(0);
  return sizing.memory ? plan_for_memory(*sizing.memory, keys, block_bits)
                       : plan_for_capacity(keys, sizing.rate(), block_bits);
}

GrowthRule growth_rule(const JobSizing& sizing) {
  return growth_rule_for(sizing.capacity.value_or(0), sizing.rate(),
                         sizing.block_bits.value_or(0));
}

Plan plan_fixed_filter(const JobSizing& sizing, JobEvents& events) {
  check_job_sizing(sizing, events);
  if (!sizing.capacity && !sizing.memory) {
    throw UsageError("a fixed filter needs " + events.name(JobOption::kCapacity) +
                     " (the distinct keys expected) or " + events.name(JobOption::kMemory) +
                     " (its bytes): it cannot be sized without one");
  }
  const uint64_t capacity = sizing.capacity ? *sizing.capacity : job::assumed_keys(*sizing.memory);
  const Plan plan = plan_for_keys(sizing, capacity);
  job::check_plan(plan, sizing, false, events);
  return plan;
}

}  // namespace gdedup
