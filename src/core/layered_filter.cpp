#include "gdedup/layered_filter.h"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>

#include "gdedup/error.h"

namespace gdedup {

LayeredFilter::LayeredFilter(const GrowthRule& rule, uint64_t seed, BackendMaker make_backend)
    : rule_(rule), make_backend_(std::move(make_backend)) {
  rule_.validate();
  add_layer(Filter::from_plan(plan_layer(rule_, 0), seed));
}

LayeredFilter::LayeredFilter(const GrowthRule& rule, std::vector<Filter> layers,
                             uint64_t keys_offered, BackendMaker make_backend)
    : rule_(rule), make_backend_(std::move(make_backend)), keys_offered_(keys_offered) {
  rule_.validate();
  if (layers.empty()) throw UsageError("a growing filter needs at least one layer; got none");
  for (size_t i = 0; i < layers.size(); ++i) {
    if (layers[i].params().seed != layers[0].params().seed) {
      throw UsageError("layer " + std::to_string(i + 1) + " of the filter has hash seed " +
                       std::to_string(layers[i].params().seed) + ", layer 1 has " +
                       std::to_string(layers[0].params().seed) +
                       "; all layers of a filter must share one seed");
    }
    add_layer(std::move(layers[i]));
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

void LayeredFilter::add_layer(Filter layer) {
  layers_.push_back(std::make_unique<Filter>(std::move(layer)));
  backends_.push_back(make_backend_(*layers_.back()));
}

uint64_t LayeredFilter::bytes() const {
  uint64_t total = 0;
  for (const auto& layer : layers_) total += layer->params().bytes();
  return total;
}

uint64_t LayeredFilter::insertions() const {
  uint64_t total = 0;
  for (const auto& layer : layers_) total += layer->counters().insertions;
  return total;
}

double LayeredFilter::expected_fpr() const {
  std::vector<double> rates;
  for (const auto& layer : layers_) {
    const FilterParams& p = layer->params();
    rates.push_back(gdedup::expected_fpr(p.layout, p.num_blocks, layer->counters().insertions));
  }
  return compound_fpr(rates.data(), rates.size());
}

void LayeredFilter::sync_to_host() {
  for (auto& backend : backends_) backend->sync_to_host();
}

void LayeredFilter::grow_if_due() {
  const FilterCounters& newest = layers_.back()->counters();
  if (growth_refused_ || newest.insertions + rule_.check_every <= newest.planned_capacity) return;
  const Plan next = plan_layer(rule_, static_cast<uint32_t>(layers_.size()));
  if (max_bytes_ != 0 && bytes() + next.bytes() > max_bytes_) {
    growth_refused_ = true;
    return;
  }
  add_layer(Filter::from_plan(next, seed()));
}

uint64_t LayeredFilter::keys_before_possible_growth() const {
  if (growth_refused_) return std::numeric_limits<uint64_t>::max();
  const uint64_t every = rule_.check_every;
  const uint64_t next_check = (keys_offered_ / every + 1) * every;
  const FilterCounters& newest = layers_.back()->counters();
  const uint64_t capacity = newest.planned_capacity;
  if (newest.insertions + every > capacity) return next_check - keys_offered_;
  // Insertions grow by at most one a key, so no check before the newest
  // layer could hold capacity - every + 1 keys can add a layer.
  const uint64_t first_possible = keys_offered_ + (capacity - every - newest.insertions) + 1;
  const uint64_t check = (first_possible + every - 1) / every * every;
  return std::max(next_check, check) - keys_offered_;
}

uint64_t LayeredFilter::test_and_set(const uint64_t* fingerprints, uint64_t count,
                                     uint8_t* was_present) {
  uint64_t fresh = 0;
  while (count > 0) {
    if (keys_offered_ % rule_.check_every == 0) grow_if_due();
    const uint64_t span = std::min(count, keys_before_possible_growth());
    fresh += test_and_set_span(fingerprints, span, was_present);
    fingerprints += span;
    was_present += span;
    count -= span;
    keys_offered_ += span;
  }
  return fresh;
}

LayeredFilter::Left LayeredFilter::look_up(size_t layers, const uint64_t* fingerprints,
                                           uint64_t count, uint8_t* present) {
  Left left{fingerprints, count, nullptr};
  // Newest first: the larger layers hold more keys, and a key found in one
  // is not looked up in the rest.
  for (size_t j = layers; j-- > 0 && left.count > 0;) {
    answers_.resize(left.count);
    backends_[j]->contains(left.keys, left.count, answers_.data());
    uint64_t found = 0;
    for (uint64_t i = 0; i < left.count; ++i) found += answers_[i];
    // A stream of new keys finds none: it is looked up in place, uncopied.
    if (found == 0) continue;
    if (left.at == nullptr) {
      pending_.resize(left.count);
      pending_at_.resize(left.count);
    }
    // Without branches, as most keys are not found. In place from the second
    // layer on: entry i is read before entry kept <= i is written.
    uint64_t kept = 0;
    for (uint64_t i = 0; i < left.count; ++i) {
      const uint64_t at = left.at == nullptr ? i : left.at[i];
      const uint8_t hit = answers_[i];
      present[at] = hit;
      pending_[kept] = left.keys[i];
      pending_at_[kept] = at;
      kept += 1 - hit;
    }
    left = Left{pending_.data(), kept, pending_at_.data()};
  }
  return left;
}

uint64_t LayeredFilter::test_and_set_span(const uint64_t* fingerprints, uint64_t count,
                                          uint8_t* was_present) {
  Backend& newest = *backends_.back();
  if (layers_.size() == 1) return newest.test_and_set(fingerprints, count, was_present);
  const Left left = look_up(layers_.size() - 1, fingerprints, count, was_present);
  if (left.at == nullptr) return newest.test_and_set(left.keys, left.count, was_present);
  if (left.count == 0) return 0;  // every key was in an older layer
  answers_.resize(left.count);
  const uint64_t fresh = newest.test_and_set(left.keys, left.count, answers_.data());
  for (uint64_t i = 0; i < left.count; ++i) was_present[left.at[i]] = answers_[i];
  return fresh;
}

void LayeredFilter::contains(const uint64_t* fingerprints, uint64_t count, uint8_t* present) {
  if (layers_.size() == 1) return backends_[0]->contains(fingerprints, count, present);
  const Left left = look_up(layers_.size(), fingerprints, count, present);
  if (left.at == nullptr) {
    std::fill(present, present + count, uint8_t{0});
    return;
  }
  for (uint64_t i = 0; i < left.count; ++i) present[left.at[i]] = 0;
}

}  // namespace gdedup
