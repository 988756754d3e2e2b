// The filter a job runs on: fixed (one Filter and its backend, new, from a
// filter file or from a checkpoint) or growing (layers, each with its own
// backend, new or from a checkpoint). Everything after the choice treats
// both alike.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "gdedup/backend_registry.h"
#include "gdedup/checkpoint.h"
#include "gdedup/filter_summary.h"
#include "gdedup/layered_filter.h"
#include "gdedup/pipeline.h"

namespace gdedup::job {

// The backend a job asked for: `which` ("auto" or a name) with its options,
// and how the front end names the choice in a refusal ("--backend foo").
struct BackendChoice {
  std::string which = "auto";
  BackendOptions options;
  std::string given;
};

class JobFilter {
 public:
  // Backends come from choose_backend (gdedup/backend_registry.h): for the filter
  // of `start` (each of its layers when it grows), or for each layer of a
  // new filter growing by `rule`.
  JobFilter(Checkpoint start, const BackendChoice& choice);
  JobFilter(const GrowthRule& rule, const BackendChoice& choice);
  // A growing filter's saved layers, continued after `keys_offered` keys.
  JobFilter(const GrowthRule& rule, std::vector<Filter> layers, uint64_t keys_offered,
            const BackendChoice& choice);

  // "cpu (AVX2, 2 threads)" and why, for the console.
  const std::string& description() const { return description_; }
  // The fixed filter (null when growing) and the state it resumes from.
  Filter* fixed() { return start_ && !growing_ ? &start_->filter : nullptr; }
  const Filter* fixed() const { return start_ && !growing_ ? &start_->filter : nullptr; }
  const ResumeState& resume_state() const { return start_->state; }
  // The growing filter (null when fixed).
  LayeredFilter* growing() { return growing_.get(); }
  const LayeredFilter* growing() const { return growing_.get(); }

  PipelineStats run(const PipelineOptions& options);
  // Makes the filter's bytes current on the host.
  void sync_to_host();
  std::string backend_name() const;
  FilterSummary state() const;

 private:
  // A growing filter's layers are moved out of start_ into growing_.
  std::optional<Checkpoint> start_;
  std::unique_ptr<Backend> backend_;
  std::unique_ptr<LayeredFilter> growing_;
  std::string description_;
};

}  // namespace gdedup::job
