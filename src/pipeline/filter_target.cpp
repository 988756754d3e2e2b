// A Bloom filter as the driver's target: fixed, or growing by layers.
#include <optional>

#include "gdedup/filter.h"
#include "gdedup/layered_filter.h"
#include "gdedup/planner.h"
#include "pipeline/resume_check.h"
#include "pipeline/run_target.h"

namespace gdedup::pipeline {
namespace {

class FilterTarget final : public RunTarget {
 public:
  FilterTarget(Filter& filter, Backend& backend, LayeredFilter* layered)
      : filter_(filter), backend_(backend), layered_(layered) {}

  KeyHashing hashing() const override { return KeyHashing{filter_.params().seed, false}; }
  const Backend* memory() const override { return &backend_; }

  uint64_t test_and_set(WorkBatch& batch, uint64_t n) override {
    return backend_.test_and_set(batch.fingerprints.data(), n, batch.answers.data());
  }
  void contains(WorkBatch& batch, uint64_t n) override {
    backend_.contains(batch.fingerprints.data(), n, batch.answers.data());
  }

  void check_resume(const ResumeState& state, const PipelineOptions& options,
                    const std::vector<InputIdentity>& now) const override {
    pipeline::check_resume(state, options, run_filter(), now);
  }

  void checkpoint(CheckpointWriter& writer, ResumeState state) override {
    backend_.sync_to_host();
    const RunFilter saved = run_filter();
    state.growth = saved.growth;
    writer.start(saved.layers, std::move(state));
  }

  void after_batch(const PipelineOptions& options, const PipelineStats& stats) override {
    (void)stats;
    const FilterCounters& c = filter_.counters();
    if (warned_ || c.planned_capacity == 0 || c.insertions <= c.planned_capacity) return;
    warned_ = true;
    if (options.on_over_capacity) {
      const double fpr = expected_fpr(filter_.params().layout, filter_.params().num_blocks,
                                       c.insertions);
      options.on_over_capacity(c.planned_capacity, fpr);
    }
  }

 private:
  RunFilter run_filter() const {
    if (layered_ == nullptr) return {{&filter_}, std::nullopt};
    RunFilter f;
    for (size_t i = 0; i < layered_->layer_count(); ++i) f.layers.push_back(&layered_->layer(i));
    f.growth = GrowthState{layered_->rule(), layered_->max_bytes(), layered_->keys_offered()};
    return f;
  }

  Filter& filter_;
  Backend& backend_;
  LayeredFilter* layered_;
  bool warned_ = false;
};

}  // namespace

std::unique_ptr<RunTarget> filter_target(Filter& filter, Backend& backend,
                                         LayeredFilter* layered) {
  return std::make_unique<FilterTarget>(filter, backend, layered);
}

}  // namespace gdedup::pipeline
