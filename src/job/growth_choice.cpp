#include "job/growth_choice.h"

#include <string>

#include "gdedup/error.h"
#include "gdedup/filter_file.h"
#include "gdedup/frontend/number_text.h"

namespace gdedup::job {
namespace {

// Checkpoints of this version and older held one layer whatever the
// command: they resume as a fixed filter.
constexpr uint32_t kLastOneLayerCheckpointVersion = 4;

}  // namespace

void warn_ignored_sizing(const Job& job, const FilterRules& rules, const FilterParams& first) {
  const JobSizing& request = job.spec.sizing;
  if (!request.given()) return;
  if (request.capacity) {
    if (rules.growth) {
      if (plan_growth(job) == *rules.growth) return;
    } else {
      const Plan plan = plan_job(job);
      if (plan.layout == first.layout && plan.num_blocks == first.num_blocks) return;
    }
  }
  job.events.warn(job.spec.filter_path + " exists, so its own parameters are used and the "
                  "sizing options (" + job.name(JobOption::kCapacity) + ", " +
                  job.name(JobOption::kFpr) + ", " + job.name(JobOption::kMemory) + ", " +
                  job.name(JobOption::kBlockBits) + ") are ignored; they size new filters only");
}

void check_resume_growth(const Job& job, const ResumeState& saved,
                         const std::optional<GrowthState>& requested) {
  if (!saved.growth && saved.file_version <= kLastOneLayerCheckpointVersion) return;
  try {
    check_checkpoint_growth(saved.growth, requested);
  } catch (const Error& e) {
    const std::string fixed_by = " (" + job.name(JobOption::kNoGrow) + " and " +
                                 job.name(JobOption::kMemory) + " make a new filter fixed; an "
                                 "existing filter file keeps its own kind)";
    throw Error("cannot resume from checkpoint " + job.spec.checkpoint.path + ": " + e.what() +
                    (saved.growth.has_value() == requested.has_value() ? "" : fixed_by),
                e);
  }
}

bool growth_chosen(const Job& job) {
  const JobSpec& o = job.spec;
  std::string fixed_by;
  if (o.no_grow) fixed_by = job.name(JobOption::kNoGrow);
  else if (o.sizing.memory) fixed_by = job.name(JobOption::kMemory);
  if (o.kind == JobKind::kQuery) return false;
  if (!fixed_by.empty() && o.max_memory != 0) {
    throw UsageError(job.given(JobOption::kMaxMemory) + " caps a filter that grows, but " +
                     fixed_by + " gives this job a fixed filter; leave out " +
                     job.name(JobOption::kMaxMemory) + ", or give " +
                     job.name(JobOption::kMemory) + " to fix the filter's size");
  }
  return fixed_by.empty();
}

void check_filter_file_cap(const Job& job, const FilterFileInfo& info) {
  uint64_t bytes = 0;
  for (const FilterParams& layer : info.params) bytes += layer.bytes();
  const uint64_t max_memory = job.spec.max_memory;
  if (max_memory == 0 || bytes <= max_memory) return;
  throw UsageError(job.given(JobOption::kMaxMemory) + " is less than the " + human_bytes(bytes) +
                   " of the " + (info.rules.growth ? "growing" : "fixed") + " filter " +
                   job.spec.filter_path + "; raise it, or leave it out");
}

uint64_t growth_limit(const Job& job, uint64_t bytes, size_t layers) {
  const uint64_t max_memory = job.spec.max_memory;
  if (max_memory == 0) return job.spec.no_grow ? bytes : 0;
  if (bytes > max_memory) {
    throw UsageError(job.given(JobOption::kMaxMemory) + " is less than the filter's " +
                     human_bytes(bytes) + "; raise it" +
                     (layers == 1 ? ", or give a smaller " + job.name(JobOption::kCapacity)
                                  : std::string()));
  }
  return max_memory;
}

std::optional<GrowthState> requested_growth(const Job& job, bool grows, bool filter_existed) {
  const JobSpec& o = job.spec;
  const uint64_t max_memory = o.max_memory;
  if (filter_existed) {
    const FilterFileInfo info = read_filter_info(o.filter_path);
    if (!info.rules.growth) return std::nullopt;
    uint64_t limit = max_memory;
    if (limit == 0 && o.no_grow) {
      for (const FilterParams& layer : info.params) limit += layer.bytes();
    }
    return GrowthState{*info.rules.growth, limit, 0};
  }
  if (!grows) return std::nullopt;
  return GrowthState{plan_growth(job), max_memory, 0};
}

}  // namespace gdedup::job
