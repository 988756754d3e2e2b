#include "job/open_target.h"

#include <utility>

#include "gdedup/frontend/job_files.h"
#include "job/job_checks.h"

namespace gdedup::job {

Opening how_to_open(const Job& job, TargetFile& file) {
  const JobSpec& o = job.spec;
  file.existed = !o.filter_path.empty() && file_exists(o.filter_path);
  file.rules = job_key_rules(o);
  if (o.checkpoint.resume) return Opening::kResume;
  return o.kind == JobKind::kQuery || file.existed ? Opening::kFile : Opening::kNew;
}

std::unique_ptr<JobTarget> open_target(const Job& job) {
  TargetFile file;
  const Opening how = how_to_open(job, file);
  return job.spec.exact ? open_set_target(job, how, std::move(file))
                        : open_filter_target(job, how, std::move(file));
}

}  // namespace gdedup::job
