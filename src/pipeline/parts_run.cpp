#include "pipeline/parts_run.h"

#include <string>
#include <vector>

#include "fs/file_ops.h"
#include "gdedup/error.h"
#include "gdedup/frontend/paths.h"
#include "io/output_parts.h"

namespace gdedup {

PipelineStats run_in_parts(const PipelineOptions& options,
                           const std::function<PipelineStats(const PipelineOptions&)>& run) {
  if (options.output_parts.empty()) return run(options);
  check_parts_options(options);
  const std::string& dir = options.output_parts;
  const OptionNames& names = options.option_names();
  io::prepare_parts_dir(dir, names);
  const std::vector<std::string> previous = io::listed_parts(dir, names);
  PipelineOptions one = options;
  const std::string name = io::part_name(io::new_parts_run(), 0, 1);
  one.output = io::in_dir(dir, name);
  const PipelineStats stats = run(one);
  std::vector<io::OutputPart> parts;
  try {
    if (stats.output_bytes > 0) {
      parts.push_back(io::OutputPart{name, stats.output_bytes, io::file_checksum(one.output),
                                     fs::host_name()});
    }
    io::write_parts_manifest(dir, parts);
  } catch (...) {
    fs::unlink_file(one.output);
    throw;
  }
  if (parts.empty()) fs::unlink_file(one.output);
  io::remove_parts(dir, previous, parts);
  return stats;
}

void check_parts_options(const PipelineOptions& options) {
  if (options.output_parts.empty()) return;
  const OptionNames& names = options.option_names();
  const std::string parts = names.name(JobOption::kOutputParts);
  if (options.mode == Mode::kBuild) {
    throw UsageError("a build writes no output, so it has no parts; leave out " + parts);
  }
  if (options.output != "-") {
    throw UsageError("the output goes either to " + options.output + " or in parts to " +
                     options.output_parts + "; give one of " + names.name(JobOption::kOutput) +
                     " and " + parts);
  }
  if (!options.checkpoint.empty() || options.resume != nullptr) {
    throw UsageError(parts + " cannot be checkpointed yet; give " +
                     names.with(JobOption::kOutput, "FILE") + " to checkpoint the job, or "
                     "leave out " + names.name(JobOption::kCheckpoint));
  }
  // A run removes the parts of the one before: never an input.
  const std::string folder = fs::real_path(options.output_parts);
  if (folder.empty()) return;
  for (const std::string& input : options.inputs) {
    const size_t slash = input.rfind('/');
    const std::string name = slash == std::string::npos ? input : input.substr(slash + 1);
    if (!io::part_like(name) && name != "MANIFEST") continue;
    if (fs::real_path(slash == std::string::npos ? "." : input.substr(0, slash + 1)) != folder) {
      continue;
    }
    throw UsageError("input " + input + " lies in the " + parts + " folder " +
                     options.output_parts + ", whose parts the run replaces; copy it elsewhere "
                     "first, or give another folder");
  }
}

}  // namespace gdedup
