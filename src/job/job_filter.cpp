#include "job/job_filter.h"

#include <memory>
#include <utility>

namespace gdedup::job {

namespace {

// The first layer's choice describes the job; `auto` takes the GPU for a
// layer only while it fits, and every backend gives the same bytes.
// The maker outlives this JobFilter's place (it moves): it keeps the
// description in a string of its own.
BackendMaker layer_backends(const BackendChoice& choice,
                            const std::shared_ptr<std::string>& first) {
  return [choice, first](Filter& layer) {
    MadeBackend chosen = choose_backend(choice.which, choice.options, layer, choice.given);
    if (first->empty()) *first = chosen.description;
    return std::move(chosen.backend);
  };
}

}  // namespace

JobFilter::JobFilter(Checkpoint start, const BackendChoice& choice)
    : start_(std::move(start)) {
  if (start_->state.growth) {
    auto first = std::make_shared<std::string>();
    growing_ = resume_growing_filter(*start_, layer_backends(choice, first));
    description_ = *first;
    return;
  }
  // Chosen for the filter where it now lives: a backend works on it in place.
  MadeBackend chosen =
      choose_backend(choice.which, choice.options, start_->filter, choice.given);
  backend_ = std::move(chosen.backend);
  description_ = std::move(chosen.description);
}

JobFilter::JobFilter(const GrowthRule& rule, const BackendChoice& choice) {
  auto first = std::make_shared<std::string>();
  growing_ = std::make_unique<LayeredFilter>(rule, kDefaultSeed,
                                             layer_backends(choice, first));
  description_ = *first;
}

JobFilter::JobFilter(const GrowthRule& rule, std::vector<Filter> layers, uint64_t keys_offered,
                     const BackendChoice& choice) {
  auto first = std::make_shared<std::string>();
  growing_ = std::make_unique<LayeredFilter>(rule, std::move(layers), keys_offered,
                                             layer_backends(choice, first));
  description_ = *first;
}

PipelineStats JobFilter::run(const PipelineOptions& options) {
  if (growing_) return run_pipeline(options, *growing_);
  return run_pipeline(options, start_->filter, *backend_);
}

void JobFilter::sync_to_host() {
  if (growing_) {
    growing_->sync_to_host();
  } else {
    backend_->sync_to_host();
  }
}

std::string JobFilter::backend_name() const {
  return growing_ ? growing_->backend(0).name() : backend_->name();
}

FilterSummary JobFilter::state() const {
  return growing_ ? summarize(*growing_) : summarize(start_->filter);
}

}  // namespace gdedup::job
