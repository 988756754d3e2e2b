// A Bloom filter kept alive by its owner: a job for the length of its run,
// or a program between its calls (Python's Filter). Fixed (one Filter and
// its backend) or growing (a LayeredFilter, a backend per layer); new, from
// a filter file (mapped too), or from a checkpoint. Its backends are the
// registry's choice (choose_backend) and nobody else's. Everything after the
// opening treats both kinds alike: the pipeline runs on it, a program asks
// it of fingerprints, and it is merged, summarized and saved in one way.
//
//   BackendChoice choice;                          // "auto"
//   LiveFilter seen = new_live_filter(spec, choice, events);
//   seen.test_and_set(fingerprints, n, answers);
//   seen.save(path, rules, guard, false);          // under path's lock
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gdedup/backend_registry.h"
#include "gdedup/checkpoint.h"
#include "gdedup/filter_file.h"
#include "gdedup/filter_summary.h"
#include "gdedup/guarded_save.h"
#include "gdedup/job.h"
#include "gdedup/key_rules.h"
#include "gdedup/layered_filter.h"
#include "gdedup/pipeline.h"

namespace gdedup {

namespace fs {
class MappingGuard;
}

// The backend a front end asked for: `which` ("auto" or a registered name)
// with its options, and how the front end names the choice in a refusal
// ("--backend foo", "backend=\"foo\"").
struct BackendChoice {
  std::string which = "auto";
  BackendOptions options;
  std::string given;
};

class LiveFilter {
 public:
  // A fixed filter (new: Filter::from_plan) and its backend.
  LiveFilter(Filter filter, const BackendChoice& choice);
  // A new filter growing by `rule`, a backend for each layer as it is made.
  LiveFilter(const GrowthRule& rule, const BackendChoice& choice);
  // The layers and growth rule of a loaded filter file, named `path` in
  // errors. The bit arrays of a mapped one (map_filter_file) are guarded:
  // see check_mapping.
  LiveFilter(FilterFile file, const BackendChoice& choice, const std::string& path = "");
  // The filter of a checkpoint, fixed or growing as it holds it, with the
  // state it resumes from.
  LiveFilter(Checkpoint start, const BackendChoice& choice);
  ~LiveFilter();
  LiveFilter(LiveFilter&&) noexcept;
  // Not assigned: members assigned in order would end a mapping before
  // its guard, a filter before its backend.
  LiveFilter& operator=(LiveFilter&&) = delete;

  // "cpu (AVX2, 2 threads)" and why, for the first layer.
  const std::string& description() const { return description_; }
  // The first layer's backend name: "cpu".
  std::string backend_name() const;
  // Where a resumed job continues; null unless opened from a checkpoint.
  const ResumeState* resume_state() const { return resume_ ? &*resume_ : nullptr; }

  bool growing() const { return growing_ != nullptr; }
  // The growing filter (null when fixed), for what reads its layers whole.
  const LayeredFilter* layered() const { return growing_.get(); }
  size_t layer_count() const { return growing_ ? growing_->layer_count() : 1; }
  // Layer i (0 for a fixed filter) as it is on the host: current after
  // sync_to_host.
  const Filter& layer(size_t i) const { return growing_ ? growing_->layer(i) : *fixed_; }
  const GrowthRule* rule() const { return growing_ ? &growing_->rule() : nullptr; }
  uint64_t keys_offered() const { return growing_ ? growing_->keys_offered() : 0; }
  // A growing filter adds no layer past max_bytes (0: no limit).
  uint64_t max_bytes() const { return growing_ ? growing_->max_bytes() : 0; }
  void set_max_bytes(uint64_t max_bytes);
  bool growth_refused() const { return growing_ && growing_->growth_refused(); }
  uint64_t bytes() const;
  uint64_t insertions() const;

  // Makes the bytes current on the host (a mapped filter's always are).
  void sync_to_host();
  // Sizes, fill and rates over every layer (rates compounded), as on the
  // host.
  FilterSummary summary() const;
  // Set when the layer taking new keys holds more than it was planned for
  // and cannot grow (a fixed filter, or growth refused by max_bytes): the
  // rate it now gives is above the plan, and rising.
  struct OverCapacity {
    uint64_t planned = 0;
    double planned_fpr = 0;
    double fpr_now = 0;
  };
  std::optional<OverCapacity> over_capacity() const;

  PipelineStats run(const PipelineOptions& options);
  uint64_t test_and_set(const uint64_t* fingerprints, uint64_t count, uint8_t* was_present);
  void contains(const uint64_t* fingerprints, uint64_t count, uint8_t* present);
  // Throws Error (input_changed) once another program has cut the mapped
  // filter file short: the pages gone read as zeros since (the mapping is
  // guarded) rather than ending the process with SIGBUS, so answers read from them must not be handed out. Called after
  // every use of the bits; every call fails from then on. Does nothing for
  // a filter in its own memory.
  void check_mapping() const;

  // ORs `other`'s layers into this filter's, as `gdedup merge` does: both
  // fixed, or both growing by one rule (gdedup::merged_rules). Throws
  // UsageError naming what differs, or the layer that the merge would leave
  // far past its plan (the command exits 4 for it; `names` names the
  // capacity to build with instead); this filter is then unchanged. The
  // backends are made anew, on the merged bits, by the choice this filter
  // was opened with.
  void merge(LiveFilter& other, const OptionNames& names);

  // A job's save: crash-safe (filter_file.h), with `keys` as the key rules
  // recorded; the job holds the file's lock.
  void save(const std::string& path, const std::optional<KeyRules>& keys);
  // A program's save of a filter it keeps between calls: through `guard`
  // (gdedup/guarded_save.h: under PATH.lock, and never over a version of
  // the file this filter did not read). A filter far past its plan
  // (check_overfull) is refused with Error (filter_overfull), as a job does
  // not save one, its message naming the capacity by `names` and saying
  // that `save_anyway` (the program's words: "allow_overfull=True") saves
  // it all the same; null saves it.
  void save(const std::string& path, const std::optional<KeyRules>& keys, SaveGuard& guard,
            const OptionNames& names, const char* save_anyway);

 private:
  BackendMaker backends();
  // Throws Error (filter_overfull) naming the first layer far past its plan.
  void refuse_overfull(const std::string& path, const OptionNames& names,
                       const std::string& save_anyway);
  // Copies of the layers and the growth state, as a filter file holds them.
  FilterFile to_file();

  BackendChoice choice_;
  std::unique_ptr<Filter> fixed_;
  std::unique_ptr<Backend> fixed_backend_;
  std::unique_ptr<LayeredFilter> growing_;
  std::optional<ResumeState> resume_;
  // Set by the backend maker when it makes the first layer's backend.
  std::shared_ptr<std::string> first_description_ = std::make_shared<std::string>();
  std::string description_;
  // A mapped filter's: the file, and the guard of its bit arrays, declared
  // after the layers so that it ends before their mapping does.
  std::string mapped_path_;
  std::unique_ptr<fs::MappingGuard> mapping_guard_;
};

// A new filter that a program fills (a job without inputs to estimate),
// checked as a job's new filter is, refusals naming options by `events`:
// the spec as check_job_spec checks it (a max_memory of 0 given, say),
// growing unless spec.no_grow or spec.sizing.memory makes it fixed
// (UsageError for a spec.max_memory on a fixed one), a fixed one planned by
// plan_fixed_filter, a growing one by growth_rule and capped at
// spec.max_memory (UsageError when its first layer is already past it).
LiveFilter new_live_filter(const JobSpec& spec, const BackendChoice& choice, JobEvents& events);

}  // namespace gdedup
