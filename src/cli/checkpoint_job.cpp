#include "cli/checkpoint_job.h"

#include "cli/numbers.h"
#include "cli/preflight.h"
#include "gdedup/checkpoint.h"
#include "gdedup/error.h"
#include "gdedup/filter_file.h"

namespace gdedup::cli {

void refuse_existing_checkpoint(const JobOptions& o) {
  if (o.checkpoint.enabled() && file_exists(o.checkpoint.path)) {
    throw Error("checkpoint " + o.checkpoint.path + " exists from an earlier run: add "
                "--resume to continue that run, or delete the file to start over");
  }
}

void require_checkpoint(const JobOptions& o) {
  if (!file_exists(o.checkpoint.path)) {
    throw Error("no checkpoint at " + o.checkpoint.path +
                " to resume from; run without --resume to start");
  }
}

void check_resume_sizing(const JobOptions& o, const SizingRequest& request, InputFormat format,
                         const FilterParams& saved) {
  if (!o.filter_path.empty() && file_exists(o.filter_path)) {
    try {
      check_checkpoint_params(saved, read_filter_info(o.filter_path).params[0]);
    } catch (const Error& e) {
      throw Error("cannot resume from checkpoint " + o.checkpoint.path + " with filter file " +
                  o.filter_path + ": " + e.what(), e);
    }
    return;
  }
  if (!o.sizing.given()) return;
  const Plan plan = plan_job(request, o.inputs, format, o.record_separator());
  check_checkpoint_params(saved, FilterParams{plan.num_blocks, plan.layout, kDefaultSeed});
}

std::string interrupted_line(const PipelineStats& stats, const std::string& checkpoint) {
  return "interrupted at record " + group_digits(stats.records) + "; checkpoint saved to " +
         checkpoint + "; resume with the same command plus --resume";
}

}  // namespace gdedup::cli
