// The filter behind a Python Filter: fixed (one Filter and its backend) or
// growing (a LayeredFilter), new or loaded from a filter file, with the
// key rules its keys are made by. No Python here: every call runs with the
// GIL released, one at a time (the caller holds the lock).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "gdedup/backend_registry.h"
#include "gdedup/filter.h"
#include "gdedup/filter_file.h"
#include "gdedup/frontend/mapping_guard.h"
#include "gdedup/growth.h"
#include "gdedup/guarded_save.h"
#include "gdedup/job.h"
#include "gdedup/layered_filter.h"

namespace gdedup::python {

// Which backend runs each layer, chosen as every job chooses it
// (choose_backend): "auto" or a registered name; `given` names the choice
// in a refusal.
struct BackendChoice {
  std::string name = "auto";
  BackendOptions options;
  std::string given;
};

// A new filter: its size as the library plans it (JobSizing), whether it
// grows (a memory budget makes it fixed), and a growing one's cap.
struct Sizing {
  JobSizing sizing;
  bool grow = true;
  uint64_t max_memory = 0;  // a growing filter adds no layer past this; 0 for none
};

class FilterEngine {
 public:
  // Planned by the library (plan_fixed_filter, growth_rule), which says
  // what it warns of through `events`. Throws UsageError for sizes that
  // cannot be planned or that contradict each other, in `events`' words.
  FilterEngine(const Sizing& sizing, const BackendChoice& backend, JobEvents& events);
  // The layers and growth rule of a loaded filter file, named `path` in
  // errors. The bit arrays of a mapped one (map_filter_file) are guarded:
  // see check_mapping.
  FilterEngine(FilterFile file, const BackendChoice& backend, const std::string& path = "");

  uint64_t test_and_set(const uint64_t* fingerprints, uint64_t count, uint8_t* was_present);
  void contains(const uint64_t* fingerprints, uint64_t count, uint8_t* present);
  // ORs `other`'s layers into this filter's, as `gdedup merge` does: both
  // fixed, or both growing by one rule (gdedup::merged_rules). Throws
  // UsageError naming what differs, or the layer that the merge would leave
  // far past its plan (check_overfull: the command exits 4 for it); this
  // filter is then unchanged. The backends are made anew, on the merged
  // bits.
  void merge(FilterEngine& other);
  // Crash-safe (filter_file.h), with `keys` as the key rules recorded,
  // through `guard` (gdedup/guarded_save.h: under PATH.lock, and never over
  // a version of the file this filter did not read). A filter far past
  // its plan (check_overfull) is refused with Error (filter_overfull), as
  // a job does not save one, unless `allow_overfull`.
  void save(const std::string& path, const std::optional<KeyRules>& keys, SaveGuard& guard,
            bool allow_overfull);

  bool growing() const { return growing_ != nullptr; }
  size_t layer_count() const { return growing_ ? growing_->layer_count() : 1; }
  const Filter& layer(size_t i);  // current on the host
  const GrowthRule* rule() const { return growing_ ? &growing_->rule() : nullptr; }
  uint64_t keys_offered() const { return growing_ ? growing_->keys_offered() : 0; }
  uint64_t bytes() const;
  uint64_t insertions() const;
  // The rate a query sees now: per layer from its fill, compounded.
  double current_fpr();
  double estimated_keys();
  // The fraction of bits set, over all layers.
  double fill();
  uint64_t max_bytes() const { return growing_ ? growing_->max_bytes() : 0; }
  bool growth_refused() const { return growing_ && growing_->growth_refused(); }
  // Set when the layer taking new keys holds more than it was planned for
  // and cannot grow (a fixed filter, or growth refused by max_memory): the
  // rate it now gives is above the plan, and rising.
  struct OverCapacity {
    uint64_t planned = 0;
    double planned_fpr = 0;
    double fpr_now = 0;
  };
  std::optional<OverCapacity> over_capacity() const;
  // Throws Error (input_changed) once another program has cut the mapped
  // filter file short: the pages gone read as zeros since (gdedup/frontend/mapping_guard.h)
  // rather than ending the process with SIGBUS, so answers read from them
  // must not be handed out. Called after every use of the bits; every call
  // fails from then on. Does nothing for a filter in its own memory.
  void check_mapping() const;
  // "cpu (AVX2, 1 thread)" for the first layer.
  const std::string& description() const { return description_; }

 private:
  BackendMaker backends();
  // save's writing, under its lock.
  void write(const std::string& path, const std::optional<KeyRules>& keys);
  // Throws Error (filter_overfull) naming the first layer far past its plan.
  void refuse_overfull(const std::string& path);
  // Copies of the layers and the growth state, as a filter file holds them.
  FilterFile to_file();
  void sync();
  const Filter& at(size_t i) const;  // as it is on the host

  BackendChoice choice_;
  std::unique_ptr<Filter> fixed_;
  std::unique_ptr<Backend> fixed_backend_;
  std::unique_ptr<LayeredFilter> growing_;
  std::shared_ptr<std::string> first_description_ = std::make_shared<std::string>();
  std::string description_;
  // A mapped filter's: the file, and the guard of its bit arrays, declared
  // after the layers so that it ends before their mapping does.
  std::string mapped_path_;
  std::unique_ptr<fs::MappingGuard> mapping_guard_;
};

}  // namespace gdedup::python
