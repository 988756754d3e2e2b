#include "job/checkpoint_job.h"

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "gdedup/checkpoint.h"
#include "gdedup/error.h"
#include "gdedup/filter_file.h"
#include "gdedup/frontend/job_files.h"
#include "gdedup/frontend/number_text.h"

namespace gdedup::job {

void check_checkpoint_options(const Job& job) {
  const JobCheckpoints& o = job.spec.checkpoint;
  const std::string checkpoint = job.name(JobOption::kCheckpoint);
  for (const auto& [given, option] : {std::pair{o.resume, JobOption::kResume},
                                      std::pair{o.replayable_stdin, JobOption::kReplayableStdin}}) {
    if (given && !o.enabled()) {
      throw UsageError(job.name(option) + " needs " +
                       job.events.with(JobOption::kCheckpoint, "FILE"));
    }
  }
  if (!o.enabled()) return;
  if (o.path == "-") throw UsageError(checkpoint + " -: the checkpoint must be a file");
  if (job.mode() != Mode::kBuild && job.spec.output == "-") {
    throw UsageError(checkpoint + " needs the output in a file (" +
                     job.events.with(JobOption::kOutput, "FILE") + "): standard output cannot "
                     "be cut back to the checkpoint's offset when the run is resumed");
  }
  const bool reads_stdin = std::find(job.inputs.begin(), job.inputs.end(), "-") != job.inputs.end();
  const std::string replayable = job.name(JobOption::kReplayableStdin);
  if (o.replayable_stdin && !reads_stdin) {
    throw UsageError(replayable + " has no effect: no input is standard input ('-' or no input "
                     "named); drop " + replayable);
  }
  if (reads_stdin && !o.replayable_stdin) {
    throw UsageError("cannot checkpoint a run that reads standard input: a resumed run could "
                     "not read it again; give the input as a file, or add " + replayable +
                     " if the same bytes will be fed again on resume");
  }
}

void refuse_existing_checkpoint(const Job& job) {
  const JobCheckpoints& o = job.spec.checkpoint;
  if (o.enabled() && !o.resume && file_exists(o.path)) {
    throw Error("checkpoint " + o.path + " exists from an earlier run: add " +
                job.name(JobOption::kResume) + " to continue that run, or delete the file to "
                "start over");
  }
}

// A resume needs its checkpoint.
void require_checkpoint(const Job& job) {
  if (!file_exists(job.spec.checkpoint.path)) {
    throw Error("no checkpoint at " + job.spec.checkpoint.path + " to resume from; run without " +
                job.name(JobOption::kResume) + " to start");
  }
}

namespace {

// The job had renamed its output over OUTPUT, or writes none: it may have
// saved its filter too before it was stopped.
bool may_have_saved(const ResumeState& saved) {
  return saved.output_temporary.empty() || !file_exists(saved.output_temporary);
}

// `own_save`: the change may be the job's own save (it cannot tell here).
[[noreturn]] void refuse_changed_filter_file(const Job& job, const FilterFileMark& now,
                                             const std::string& change, bool own_save) {
  const std::string& path = job.spec.filter_path;
  const std::string& checkpoint = job.spec.checkpoint.path;
  std::string text = "cannot resume from checkpoint " + checkpoint + ": the filter file " + path +
                     " changed while the job was stopped: " + change + ". ";
  if (now.existed) {
    text += "The checkpoint's filter lacks the keys saved there since the job started, and a "
            "resume would save it over " + path + ", losing them. ";
  } else {
    text += "A resume would save the checkpoint's filter there, bringing back the keys the "
            "file held when the job started. Restore the file, or ";
  }
  if (own_save) {
    text += "If this job saved it itself (stopped after it saved its filter, before it removed "
            "its checkpoint), the job is complete: delete " + checkpoint + ". Otherwise ";
  }
  const bool mid_sentence = own_save || !now.existed;
  text += std::string(mid_sentence ? "start" : "Start") + " the job again" +
          (now.existed ? " from the file as it is now" : "") + ": delete " + checkpoint +
          " and run the same command without " + job.name(JobOption::kResume) + ".";
  throw Error(text, ErrorKind::resume_mismatch);
}

// True when `layer` of the file at `path` holds `filter`'s parameters,
// counters and bits.
bool file_layer_holds(const std::string& path, const FilterFileInfo& info, size_t layer,
                      const Filter& filter) {
  const FilterCounters& c = info.counters[layer];
  const FilterCounters& mine = filter.counters();
  if (!(info.params[layer] == filter.params()) || c.insertions != mine.insertions ||
      c.planned_capacity != mine.planned_capacity || c.planned_fpr != mine.planned_fpr) {
    return false;
  }
  // A piece at a time: the job's filter is already in memory.
  constexpr uint64_t kPiece = uint64_t{16} << 20;
  const uint64_t bytes = filter.params().bytes();
  const auto* words = reinterpret_cast<const unsigned char*>(filter.words());
  std::vector<unsigned char> piece(std::min(bytes, kPiece));
  for (uint64_t at = 0; at < bytes; at += kPiece) {
    const uint64_t length = std::min(kPiece, bytes - at);
    read_filter_slice(path, layer, at, length, piece.data(), false);
    if (std::memcmp(piece.data(), words + at, length) != 0) return false;
  }
  return true;
}

bool file_holds(const std::string& path, const LiveFilter& job, const KeyRules& rules) {
  const FilterFileInfo info = read_filter_info(path);
  if (info.rules.keys && *info.rules.keys != rules) return false;
  if (info.rules.growth.has_value() != job.growing()) return false;
  if (job.growing() && (!(*info.rules.growth == *job.rule()) ||
                        info.rules.keys_offered != job.keys_offered())) {
    return false;
  }
  if (info.params.size() != job.layer_count()) return false;
  for (size_t i = 0; i < job.layer_count(); ++i) {
    if (!file_layer_holds(path, info, i, job.layer(i))) return false;
  }
  return true;
}

}  // namespace

FilterFileCheck check_resume_files(const Job& job, bool saves_filter, bool may_compare_at_end) {
  require_checkpoint(job);
  return check_resume_files(job, read_checkpoint_state(job.spec.checkpoint.path), saves_filter,
                            may_compare_at_end);
}

FilterFileCheck check_resume_files(const Job& job, const ResumeState& saved, bool saves_filter,
                                   bool may_compare_at_end) {
  const JobSpec& o = job.spec;
  check_checkpoint_inputs(saved, job.inputs);
  if (!saves_filter) return FilterFileCheck::kUnchanged;
  const FilterFileMark now = mark_filter_file(o.filter_path);
  const std::string change = filter_file_change(saved.filter_file, now);
  if (change.empty()) return FilterFileCheck::kUnchanged;
  // The job's own save leaves a file there.
  const bool own_save = may_have_saved(saved) && now.existed;
  if (own_save && may_compare_at_end) return FilterFileCheck::kCompareAtEnd;
  refuse_changed_filter_file(job, now, change, own_save);
}

void require_own_filter_file(const Job& job, const LiveFilter& filter, const KeyRules& rules) {
  require_own_file(job, [&] { return file_holds(job.spec.filter_path, filter, rules); });
}

void require_own_file(const Job& job, const std::function<bool()>& holds_own) {
  const JobSpec& o = job.spec;
  try {
    if (file_exists(o.filter_path) && holds_own()) return;
  } catch (const Error&) {
    // Not a file this job could have saved (damaged, another kind).
  }
  throw Error("the job completed, but its filter was not saved to " + o.filter_path +
                  ", which another job saved or removed while this one was stopped: saving "
                  "this job's filter over it would lose what that job did. The checkpoint " +
                  o.checkpoint.path + " is kept; to add this job's keys to the file as it is "
                  "now, delete the checkpoint and run the same command again without " +
                  job.name(JobOption::kResume),
              ErrorKind::resume_mismatch);
}

void check_resume_sizing(const Job& job, const FilterParams& saved) {
  const JobSpec& o = job.spec;
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
  const Plan plan = plan_job(job);
  check_checkpoint_params(saved, FilterParams{plan.num_blocks, plan.layout, kDefaultSeed});
}

std::string interrupted_line(const Job& job, const PipelineStats& stats) {
  const std::string cause = job.events.stop_cause();
  return "interrupted" + (cause.empty() ? "" : " by " + cause) + " at record " +
         group_digits(stats.records) + "; checkpoint saved to " +
         job.spec.checkpoint.path + "; resume with the same command plus " +
         job.name(JobOption::kResume);
}

}  // namespace gdedup::job
