// The filter a job runs on: fixed (one Filter and its backend, new, from a
// filter file or from a checkpoint) or growing (layers, each with its own
// backend, new or from a checkpoint). Everything after the choice treats
// both alike.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "cli/backend_choice.h"
#include "cli/report.h"
#include "gdedup/checkpoint.h"
#include "gdedup/layered_filter.h"
#include "gdedup/pipeline.h"

namespace gdedup::cli {

class JobFilter {
 public:
  // Backends come from choose_backend(which, options, ...): for the filter
  // of `start` (each of its layers when it grows), or for each layer of a
  // new filter growing by `rule`.
  JobFilter(Checkpoint start, const std::string& which, const BackendOptions& options);
  JobFilter(const GrowthRule& rule, const std::string& which, const BackendOptions& options);
  // A growing filter's saved layers, continued after `keys_offered` keys.
  JobFilter(const GrowthRule& rule, std::vector<Filter> layers, uint64_t keys_offered,
            const std::string& which, const BackendOptions& options);

  // "cpu (AVX2, 2 threads)" and why, for the console.
  const std::string& description() const { return description_; }
  // The fixed filter (null when growing) and the state it resumes from.
  Filter* fixed() { return start_ && !growing_ ? &start_->filter : nullptr; }
  const ResumeState& resume_state() const { return start_->state; }
  // The growing filter (null when fixed).
  LayeredFilter* growing() { return growing_.get(); }

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

}  // namespace gdedup::cli
