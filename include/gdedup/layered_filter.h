// A filter that grows: layers of Filter (each with its own backend, so on
// the GPU each layer lives on the device), added as keys arrive per a
// GrowthRule (growth.h). A key is present when any layer holds it; new keys
// go to the newest layer.
//
// Older layers are frozen while the newest fills, so test_and_set composes
// from the backends' own operations: `contains` on the older layers
// (read-only, order-free), then `test_and_set` on the newest for the keys
// none of them holds. A key's answer is "found in an older layer" or
// "was present in the newest": the sequential semantics of one filter, and
// the same bytes on every backend.
//
// Growth is decided only when the keys offered so far (to test_and_set, over
// the filter's life) are a multiple of rule.check_every: a layer is added
// there when the newest layer's insertions plus check_every exceed its
// capacity, i.e. when it could overfill before the next check. Spans are
// cut at the checks that could add a layer, so where a layer is added
// depends only on the key stream, never on batch sizes, threads, backends
// or resumes.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "gdedup/backend.h"
#include "gdedup/filter.h"
#include "gdedup/growth.h"

namespace gdedup {

namespace detail {
class LayerStack;
}

// Makes the backend of one layer; the layer outlives it.
using BackendMaker = std::function<std::unique_ptr<Backend>(Filter& layer)>;

class LayeredFilter {
 public:
  // A new filter: its first layer planned by `rule`, keys fingerprinted
  // with `seed`. Throws UsageError for a bad rule.
  LayeredFilter(const GrowthRule& rule, uint64_t seed, BackendMaker make_backend);
  // Continues saved layers (a checkpoint or a filter file) after
  // `keys_offered` keys. Throws UsageError when there are no layers or they
  // differ in seed.
  LayeredFilter(const GrowthRule& rule, std::vector<Filter> layers, uint64_t keys_offered,
                BackendMaker make_backend);
  ~LayeredFilter();

  // The Backend operations over all layers; test_and_set may add layers.
  uint64_t test_and_set(const uint64_t* fingerprints, uint64_t count, uint8_t* was_present);
  void contains(const uint64_t* fingerprints, uint64_t count, uint8_t* present);
  // Makes every layer's words() current.
  void sync_to_host();

  // No layer is added that would take the layers' bytes past this (0: no
  // limit). The newest layer then fills past its capacity: the caller's
  // overfull check reports it.
  void set_max_bytes(uint64_t max_bytes) { max_bytes_ = max_bytes; }
  uint64_t max_bytes() const { return max_bytes_; }
  // True once a layer was due but past max_bytes.
  bool growth_refused() const { return growth_refused_; }

  // The filter seen as one Backend, for callers written for one (the
  // pipeline): add goes through test_and_set, as growth counts insertions.
  // The view must not outlive the filter.
  std::unique_ptr<Backend> as_backend();

  const GrowthRule& rule() const { return rule_; }
  uint64_t seed() const { return layer(0).params().seed; }
  size_t layer_count() const;
  const Filter& layer(size_t i) const;
  Filter& layer(size_t i);
  Backend& backend(size_t i);
  const Backend& backend(size_t i) const;
  // Keys offered to test_and_set so far, over the filter's life.
  uint64_t keys_offered() const { return keys_offered_; }
  uint64_t bytes() const;
  uint64_t insertions() const;
  // The compound false-positive rate a query sees now, from each layer's
  // insertions.
  double expected_fpr() const;

 private:
  void grow_if_due();
  // Keys that can be processed before the next check that could add a layer.
  uint64_t keys_before_possible_growth() const;
  const Filter& newest() const { return layer(layer_count() - 1); }

  GrowthRule rule_;
  std::unique_ptr<detail::LayerStack> layers_;
  uint64_t keys_offered_ = 0;
  uint64_t max_bytes_ = 0;
  bool growth_refused_ = false;
};

}  // namespace gdedup
