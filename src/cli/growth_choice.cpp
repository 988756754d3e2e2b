#include "cli/growth_choice.h"

#include <string>

#include "cli/console.h"
#include "cli/numbers.h"
#include "gdedup/error.h"
#include "gdedup/filter_file.h"

namespace gdedup::cli {
namespace {

// Checkpoints of this version and older held one layer whatever the
// command: they resume as a fixed filter.
constexpr uint32_t kLastOneLayerCheckpointVersion = 4;

}  // namespace

void warn_ignored_sizing(const JobOptions& o, const SizingRequest& request,
                         const FilterRules& rules, const FilterParams& first, InputFormat format) {
  if (!o.sizing.given()) return;
  if (request.capacity) {
    if (rules.growth) {
      if (plan_growth(request, o.inputs, format, o.record_separator()) == *rules.growth) return;
    } else {
      const Plan plan = plan_job(request, o.inputs, format, o.record_separator());
      if (plan.layout == first.layout && plan.num_blocks == first.num_blocks) return;
    }
  }
  Console::get().warn(o.filter_path + " exists, so its own parameters are used and the "
                      "sizing options (--capacity, --fpr, --memory, --block-bits) are ignored; "
                      "they size new filters only");
}

void check_resume_growth(const JobOptions& o, const ResumeState& saved,
                         const std::optional<GrowthState>& requested) {
  if (!saved.growth && saved.file_version <= kLastOneLayerCheckpointVersion) return;
  try {
    check_checkpoint_growth(saved.growth, requested);
  } catch (const Error& e) {
    const std::string fixed_by =
        " (--no-grow and --memory make a new filter fixed; an existing filter file keeps its "
        "own kind)";
    throw Error("cannot resume from checkpoint " + o.checkpoint.path + ": " + e.what() +
                    (saved.growth.has_value() == requested.has_value() ? "" : fixed_by),
                e);
  }
}

bool growth_chosen(const JobOptions& o, JobKind kind, const SizingRequest& request) {
  std::string fixed_by;
  if (o.no_grow) fixed_by = "--no-grow";
  else if (request.memory) fixed_by = "--memory";
  if (kind == JobKind::kQuery) return false;
  if (!fixed_by.empty() && !o.max_memory.empty()) {
    throw UsageError("--max-memory " + o.max_memory + " caps a filter that grows, but " +
                     fixed_by + " gives this job a fixed filter; leave out --max-memory, or "
                     "give --memory to fix the filter's size");
  }
  return fixed_by.empty();
}

uint64_t growth_limit(const JobOptions& o, uint64_t bytes, size_t layers, uint64_t max_memory) {
  if (max_memory == 0) return o.no_grow ? bytes : 0;
  if (bytes > max_memory) {
    throw UsageError("--max-memory " + o.max_memory + " is less than the filter's " +
                     human_bytes(bytes) + "; raise it" +
                     (layers == 1 ? ", or give a smaller --capacity" : ""));
  }
  return max_memory;
}

std::optional<GrowthState> requested_growth(const JobOptions& o, const SizingRequest& request,
                                            InputFormat format, bool grows, bool filter_existed,
                                            uint64_t max_memory) {
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
  return GrowthState{plan_growth(request, o.inputs, format, o.record_separator()), max_memory, 0};
}

}  // namespace gdedup::cli
