#include "gdedup/layered_filter.h"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>

#include "core/growth_checks.h"
#include "core/layer_stack.h"
#include "gdedup/error.h"

namespace gdedup {

LayeredFilter::LayeredFilter(const GrowthRule& rule, uint64_t seed, BackendMaker make_backend)
    : rule_(rule), layers_(std::make_unique<detail::LayerStack>(std::move(make_backend))) {
  rule_.validate();
  layers_->add(Filter::from_plan(plan_layer(rule_, 0), seed));
}

LayeredFilter::LayeredFilter(const GrowthRule& rule, std::vector<Filter> layers,
                             uint64_t keys_offered, BackendMaker make_backend)
    : rule_(rule),
      layers_(std::make_unique<detail::LayerStack>(std::move(make_backend))),
      keys_offered_(keys_offered) {
  rule_.validate();
  if (layers.empty()) throw UsageError("a growing filter needs at least one layer; got none");
  for (size_t i = 0; i < layers.size(); ++i) {
    if (layers[i].params().seed != layers[0].params().seed) {
      throw UsageError("layer " + std::to_string(i + 1) + " of the filter has hash seed " +
                       std::to_string(layers[i].params().seed) + ", layer 1 has " +
                       std::to_string(layers[0].params().seed) +
                       "; all layers of a filter must share one seed");
    }
    layers_->add(std::move(layers[i]));
  }
}

LayeredFilter::~LayeredFilter() = default;

namespace {

class LayeredBackend final : public Backend {
 public:
  // Counts nothing itself: each layer's backend counts in its layer.
  explicit LayeredBackend(LayeredFilter& filter) : filter_(filter), first_(filter.backend(0)) {}
  std::string name() const override { return first_.name(); }
  void contains(const uint64_t* fingerprints, uint64_t count, uint8_t* present) override {
    filter_.contains(fingerprints, count, present);
  }
  void sync_to_host() override { filter_.sync_to_host(); }
  // Every layer's backend is made by the same BackendMaker, so the first
  // one's memory suits them all. Called by the front end's threads while
  // the filter thread may be adding a layer: first_ was taken before they
  // started, since reading the filter's list of backends then would race
  // with its growth (which moves the list, not the backends).
  HostBuffer host_buffer(uint64_t bytes) const override { return first_.host_buffer(bytes); }

 protected:
  void add_keys(const uint64_t* fingerprints, uint64_t count) override {
    scratch_.resize(count);
    filter_.test_and_set(fingerprints, count, scratch_.data());
  }
  uint64_t test_and_set_keys(const uint64_t* fingerprints, uint64_t count,
                             uint8_t* was_present) override {
    return filter_.test_and_set(fingerprints, count, was_present);
  }

 private:
  LayeredFilter& filter_;
  const Backend& first_;  // layer 0's, which every layer's memory suits
  std::vector<uint8_t> scratch_;
};

}  // namespace

std::unique_ptr<Backend> LayeredFilter::as_backend() {
  return std::make_unique<LayeredBackend>(*this);
}

size_t LayeredFilter::layer_count() const { return layers_->size(); }
const Filter& LayeredFilter::layer(size_t i) const { return layers_->layer(i); }
Filter& LayeredFilter::layer(size_t i) { return layers_->layer(i); }
Backend& LayeredFilter::backend(size_t i) { return layers_->backend(i); }
const Backend& LayeredFilter::backend(size_t i) const { return layers_->backend(i); }

uint64_t LayeredFilter::bytes() const {
  uint64_t total = 0;
  for (size_t i = 0; i < layer_count(); ++i) total += layer(i).params().bytes();
  return total;
}

uint64_t LayeredFilter::insertions() const {
  uint64_t total = 0;
  for (size_t i = 0; i < layer_count(); ++i) total += layer(i).counters().insertions;
  return total;
}

double LayeredFilter::expected_fpr() const {
  std::vector<double> rates;
  for (size_t i = 0; i < layer_count(); ++i) {
    const FilterParams& p = layer(i).params();
    rates.push_back(gdedup::expected_fpr(p.layout, p.num_blocks, layer(i).counters().insertions));
  }
  return compound_fpr(rates.data(), rates.size());
}

void LayeredFilter::sync_to_host() { layers_->sync_to_host(); }

void LayeredFilter::grow_if_due() {
  const FilterCounters& counters = newest().counters();
  if (growth_refused_ ||
      !detail::layer_due(rule_, {counters.insertions, counters.planned_capacity})) {
    return;
  }
  const Plan next = plan_layer(rule_, static_cast<uint32_t>(layer_count()));
  if (max_bytes_ != 0 && bytes() + next.bytes() > max_bytes_) {
    growth_refused_ = true;
    return;
  }
  layers_->add(Filter::from_plan(next, seed()));
}

uint64_t LayeredFilter::keys_before_possible_growth() const {
  if (growth_refused_) return std::numeric_limits<uint64_t>::max();
  const FilterCounters& counters = newest().counters();
  return detail::keys_before_possible_growth(rule_, keys_offered_,
                                             {counters.insertions, counters.planned_capacity});
}

uint64_t LayeredFilter::test_and_set(const uint64_t* fingerprints, uint64_t count,
                                     uint8_t* was_present) {
  uint64_t fresh = 0;
  while (count > 0) {
    if (keys_offered_ % rule_.check_every == 0) grow_if_due();
    const uint64_t span = std::min(count, keys_before_possible_growth());
    fresh += layers_->test_and_set(fingerprints, span, was_present);
    fingerprints += span;
    was_present += span;
    count -= span;
    keys_offered_ += span;
  }
  return fresh;
}

void LayeredFilter::contains(const uint64_t* fingerprints, uint64_t count, uint8_t* present) {
  layers_->contains(fingerprints, count, present);
}

}  // namespace gdedup
