// The layers of a growing filter, each with its own backend, answered as
// one filter: a key is present when any layer holds it, and a new key goes
// to the newest layer. What layers there are is the owner's business: a
// LayeredFilter adds them by its growth rule, and each rank of an MPI job
// holds a part of every layer (mpi/sharded_layers.h).
//
// Older layers are frozen while the newest fills, so test_and_set composes
// from the backends' own operations: `contains` on the older layers
// (read-only, order-free), then `test_and_set` on the newest for the keys
// none of them holds. A key's answer is "found in an older layer" or "was
// present in the newest": the sequential semantics of one filter, and the
// same bytes on every backend.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "gdedup/backend.h"
#include "gdedup/filter.h"
#include "gdedup/layered_filter.h"

namespace gdedup::detail {

class LayerStack {
 public:
  // A layer's backend is made when it is added, or, while `make_backend`
  // is empty, by use_backends.
  explicit LayerStack(BackendMaker make_backend = {});
  ~LayerStack();

  // Adds `layer` as the newest.
  void add(Filter layer);
  // Puts `layer` in the place of layer i, with a backend of its own: the
  // same layer held otherwise (other blocks of it).
  void replace(size_t i, Filter layer);
  // Makes the backend of every layer by `make_backend`, which makes those
  // of the layers added later too.
  void use_backends(BackendMaker make_backend);

  size_t size() const { return layers_.size(); }
  Filter& layer(size_t i) { return *layers_[i]; }
  const Filter& layer(size_t i) const { return *layers_[i]; }
  Backend& backend(size_t i) { return *backends_[i]; }
  const Backend& backend(size_t i) const { return *backends_[i]; }

  // Backend::test_and_set over the layers (was_present may be null);
  // returns the keys new to the newest layer.
  uint64_t test_and_set(const uint64_t* fingerprints, uint64_t count, uint8_t* was_present);
  void contains(const uint64_t* fingerprints, uint64_t count, uint8_t* present);
  void sync_to_host();

 private:
  // The keys no layer held: keys[i] is the caller's key at[i], or, when at
  // is null, keys are all the caller's keys, in place.
  struct Left {
    const uint64_t* keys;
    uint64_t count;
    const uint64_t* at;
  };
  // Looks the keys up in the oldest `layers` layers: sets present[i] = 1
  // for those found, and returns the others (present[i] of those is
  // undefined).
  Left look_up(size_t layers, const uint64_t* fingerprints, uint64_t count, uint8_t* present);

  BackendMaker make_backend_;
  std::vector<std::unique_ptr<Filter>> layers_;
  std::vector<std::unique_ptr<Backend>> backends_;  // one per layer, destroyed first
  // Scratch for the keys no older layer holds once one held some, reused
  // between calls.
  std::vector<uint64_t> pending_;
  std::vector<uint64_t> pending_at_;
  std::vector<uint8_t> answers_;
  std::vector<uint8_t> unwanted_;  // the answers of a caller that wants none
};

}  // namespace gdedup::detail
