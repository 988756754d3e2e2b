#include "core/layer_stack.h"

#include <algorithm>
#include <utility>

namespace gdedup::detail {

LayerStack::LayerStack(BackendMaker make_backend) : make_backend_(std::move(make_backend)) {}

LayerStack::~LayerStack() = default;

void LayerStack::add(Filter layer) {
  layers_.push_back(std::make_unique<Filter>(std::move(layer)));
  if (make_backend_) backends_.push_back(make_backend_(*layers_.back()));
}

void LayerStack::replace(size_t i, Filter layer) {
  // The old backend may hold the old layer's bits (a GPU's copy): it goes
  // first.
  if (i < backends_.size()) backends_[i].reset();
  *layers_[i] = std::move(layer);
  if (i < backends_.size()) backends_[i] = make_backend_(*layers_[i]);
}

void LayerStack::use_backends(BackendMaker make_backend) {
  make_backend_ = std::move(make_backend);
  while (backends_.size() < layers_.size()) {
    backends_.push_back(make_backend_(*layers_[backends_.size()]));
  }
}

void LayerStack::sync_to_host() {
  for (auto& backend : backends_) backend->sync_to_host();
}

LayerStack::Left LayerStack::look_up(size_t layers, const uint64_t* fingerprints, uint64_t count,
                                     uint8_t* present) {
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

uint64_t LayerStack::test_and_set(const uint64_t* fingerprints, uint64_t count,
                                  uint8_t* was_present) {
  Backend& newest = *backends_.back();
  if (layers_.size() == 1) return newest.test_and_set(fingerprints, count, was_present);
  if (was_present == nullptr) {
    unwanted_.resize(count);
    was_present = unwanted_.data();
  }
  const Left left = look_up(layers_.size() - 1, fingerprints, count, was_present);
  if (left.at == nullptr) return newest.test_and_set(left.keys, left.count, was_present);
  if (left.count == 0) return 0;  // every key was in an older layer
  answers_.resize(left.count);
  const uint64_t fresh = newest.test_and_set(left.keys, left.count, answers_.data());
  for (uint64_t i = 0; i < left.count; ++i) was_present[left.at[i]] = answers_[i];
  return fresh;
}

void LayerStack::contains(const uint64_t* fingerprints, uint64_t count, uint8_t* present) {
  if (layers_.size() == 1) return backends_[0]->contains(fingerprints, count, present);
  const Left left = look_up(layers_.size(), fingerprints, count, present);
  if (left.at == nullptr) {
    std::fill(present, present + count, uint8_t{0});
    return;
  }
  for (uint64_t i = 0; i < left.count; ++i) present[left.at[i]] = 0;
}

}  // namespace gdedup::detail
