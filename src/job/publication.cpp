#include "job/publication.h"

#include <string>
#include <vector>

#include "gdedup/error.h"
#include "gdedup/frontend/paths.h"
#include "job/job_steps.h"

namespace gdedup {
namespace {

// The job's output, as a list of the files that hold its result names it;
// "" for a build, which writes none.
std::string output_phrase(const JobSpec& o) {
  if (o.mode() == Mode::kBuild) return "";
  if (!o.output_parts.empty()) {
    return "the folder " + o.output_parts + " (its MANIFEST lists this job's parts)";
  }
  if (o.output == "-") return "standard output";
  return "the output " + o.output;
}

std::string filter_phrase(const JobSpec& o) {
  return "the " + job::saved_file_word(o) + " " + o.filter_path;
}

std::string stats_phrase(const JobSpec& o) { return "the statistics file " + o.stats_path; }

// "A", "A and B", "A, B and C", with the verb that goes with them.
std::string hold(const std::vector<std::string>& holders) {
  std::string text;
  for (size_t i = 0; i < holders.size(); ++i) {
    if (i > 0) text += i + 1 == holders.size() ? " and " : ", ";
    text += holders[i];
  }
  return text + (holders.size() == 1 ? " holds" : " hold");
}

}  // namespace

std::string completed_job_text(const JobSpec& o, const JobResult& result) {
  std::vector<std::string> holders;
  if (const std::string output = output_phrase(o); !output.empty()) holders.push_back(output);
  if (result.filter_saved) holders.push_back(filter_phrase(o));
  if (!o.stats_path.empty()) holders.push_back(stats_phrase(o));
  std::string text = hold(holders) + " this job's result";
  if (o.saves_filter() && !result.filter_saved) {
    text += "; " + filter_phrase(o) + " was not saved: it ended far past its plan";
  }
  return text;
}

}  // namespace gdedup

namespace gdedup::job {
namespace {

// How a job whose filter file was not saved is done again: its checkpoint
// (kept until the filter is saved) finishes it; without one, the same
// command on the same inputs gives the same output and saves the file.
std::string redo_advice(const Job& job) {
  const JobSpec& o = job.spec;
  const bool build = o.mode() == Mode::kBuild;
  if (o.checkpoint.enabled() && file_exists(o.checkpoint.path)) {
    return "Once the cause is fixed, the same command plus " + job.name(JobOption::kResume) +
           " finishes the job from the checkpoint " + o.checkpoint.path +
           (build ? "" : ", writing the same output again") + ".";
  }
  return "Once the cause is fixed, the same command on the same inputs " +
         std::string(build ? "" : "writes the same output again and ") + "saves the " +
         saved_file_word(o) + ".";
}

// What the files hold after a failure once the job's output took its place.
std::string published_text(const Job& job, ErrorKind kind) {
  const JobSpec& o = job.spec;
  const Published& done = job.published;
  const std::string output = output_phrase(o);
  const bool stats_missing = !o.stats_path.empty() && !done.stats;
  std::string text = "The job had done its work";
  if (o.saves_filter() && !done.filter) {
    text += output.empty() ? ", but " : ": " + output + " already holds its result, but ";
    text += filter_phrase(o) + (done.overfull ? " was not saved (it ended far past its plan)"
                                              : " was not updated, so it lacks this job's keys");
    if (stats_missing) text += ", and " + stats_phrase(o) + " was not written";
    text += ".";
    // A resume refused for a filter file another job saved says itself
    // what to do.
    if (!done.overfull && kind != ErrorKind::resume_mismatch) text += " " + redo_advice(job);
    return text;
  }
  std::vector<std::string> holders;
  if (!output.empty()) holders.push_back(output);
  if (done.filter) holders.push_back(filter_phrase(o));
  if (!o.stats_path.empty() && done.stats) holders.push_back(stats_phrase(o));
  text += ": " + hold(holders) + " its result";
  if (stats_missing) text += "; only " + stats_phrase(o) + " was not written";
  text += ".";
  if (done.filter && o.kind == JobKind::kDedup) {
    text += " Do not run it again with " + job.name(JobOption::kFilter) + " " + o.filter_path +
            ": the " + saved_file_word(o) + " now holds this job's keys, so every record " +
            "would be taken as seen.";
  }
  return text;
}

}  // namespace

std::exception_ptr with_what_is_published(const Job& job, const std::exception_ptr& failure) {
  if (!job.published.output || !failure) return failure;
  try {
    std::rethrow_exception(failure);
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::broken_pipe) return failure;
    return std::make_exception_ptr(
        Error(add_sentence(e.what(), published_text(job, e.kind())), e));
  } catch (...) {
    return failure;
  }
}

}  // namespace gdedup::job
