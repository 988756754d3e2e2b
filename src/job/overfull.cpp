#include "job/overfull.h"

#include "gdedup/frontend/filter_report.h"
#include "gdedup/frontend/number_text.h"

namespace gdedup::job {
namespace {

// The end of the sentence on the keys lost, by what the mode writes.
std::string lost_keys(Mode mode) {
  switch (mode) {
    case Mode::kDedup: return " unique records were dropped as duplicates.";
    case Mode::kDuplicates: return " unique records were written as duplicates.";
    default: return " new keys were counted as present already.";
  }
}

// "about N unique records were dropped ...", or "at least N ...".
std::string lost_sentence(const Overfull& over, Mode mode) {
  return keys_lost_text(over) + lost_keys(mode);
}

// Where the capacity advice comes from: the fill, or where that is too
// high to tell, the keys read.
std::string capacity_advice(const Job& job, const Overfull& over) {
  return job.events.with(JobOption::kCapacity, std::to_string(over.capacity)) + " (or more" +
         (over.lost_at_least ? "; the filter is too full to count its keys, so this takes "
                               "every record read for a distinct key, with a quarter more)."
                             : ").");
}

// What became of the filter file: a filter this far past its plan would
// take new keys for old ones in every job that uses it, so it is not saved.
std::string filter_not_saved(const FilterEnd& end) {
  if (end.filter_path.empty()) return "";
  return " The filter was not saved: " + end.filter_path +
         (end.filter_existed ? " was left as it was before the job."
                             : " was not written.");
}

// A fixed filter, or one held at its layers, filled past its plan by this
// job's keys.
std::string filled_by_job(const Overfull& over, const FilterEnd& end, size_t layers) {
  const Job& job = *end.job;
  const bool held = job.spec.no_grow;  // else max_memory stopped it
  std::string what = "the filter ended far past its plan:";
  if (end.growing) {
    what = (held ? "the filter was held at its " + layers_text(layers) + " by " +
                       job.name(JobOption::kNoGrow)
                 : "the filter reached " + job.given(JobOption::kMaxMemory) + " at " +
                       layers_text(layers) + " and could not grow further") +
           ": its newest layer,";
  }
  const std::string text = what + " " + past_plan(over, "took in") + " and " +
                           lost_sentence(over, end.mode) + filter_not_saved(end);
  if (end.growing) {
    return text + (held ? " Run the job again without " + job.name(JobOption::kNoGrow) + "."
                        : " Run the job again with a larger " +
                              job.name(JobOption::kMaxMemory) + ", or without it.");
  }
  if (end.filter_existed) {
    return text + " Its counts cover every job that added to " + end.filter_path +
           ": start a new filter file with " + capacity_advice(job, over);
  }
  return text + " Run the job again with " + capacity_advice(job, over);
}

}  // namespace

FilterEnd filter_end(const Job& job, bool growing, bool growth_refused, bool filter_existed) {
  FilterEnd end;
  end.job = &job;
  end.mode = job.mode();
  end.growing = growing;
  end.growth_refused = growth_refused;
  end.filter_path = job.spec.filter_path;
  end.filter_existed = filter_existed;
  return end;
}

uint64_t uncounted_keys(const PipelineStats& stats, Mode mode, keys::MissingKey missing) {
  const uint64_t counted_new = mode == Mode::kDuplicates ? stats.dropped : stats.kept;
  // Records without their key are among those counted new where they are
  // written by dedup (keep) or left out by --duplicates (always).
  const bool among_new =
      mode == Mode::kDuplicates || (mode == Mode::kDedup && missing == keys::MissingKey::kKeep);
  return stats.records - stats.missing_keys - (counted_new - (among_new ? stats.missing_keys : 0));
}

std::optional<std::string> overfull_error(const std::vector<std::optional<Overfull>>& layers,
                                          const FilterEnd& end) {
  for (size_t i = 0; i < layers.size(); ++i) {
    if (!layers[i]) continue;
    const Overfull& over = *layers[i];
    // A job fills only its newest layer, and past its plan only when it may
    // not grow; an older layer (or a newest one that the job did not get to
    // grow past) came to the job already full.
    const bool newest = i + 1 == layers.size();
    if (!end.growing || (newest && end.growth_refused)) {
      return filled_by_job(over, end, layers.size());
    }
    return "layer " + std::to_string(i + 1) + " of the " + layers_text(layers.size()) +
           " of the filter " + end.filter_path + " was already far past its plan when the job "
           "began: " + past_plan(over, "holds") + ", and some" + lost_keys(end.mode) +
           filter_not_saved(end) + " A merge of filters that were full, or an earlier job "
           "that held it at its size, filled it: build one filter from the inputs of those "
           "jobs instead.";
  }
  return std::nullopt;
}

}  // namespace gdedup::job
