// The CUDA backend: the filter in device memory, batches streamed through
// pinned host buffers on several streams. Every function here exists in every
// build; without the CUDA backend they report that it was not built.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gdedup/backend.h"
#include "gdedup/filter.h"
#include "gdedup/key_set.h"

namespace gdedup {

struct GpuOptions {
  int device = 0;
  // Keys per batch sent to the device; 0 picks one from the free device
  // memory: at most 2^24, for which the three slots take about 1.1 GB of
  // device memory (gpu_device_bytes) and, for pageable callers, 0.45 GB of
  // pinned host memory (9 bytes a key each).
  // test_and_set batches are at most 2^30 keys. Backends on one device with
  // the same batch_keys share one set of slots (the layers of a growing
  // filter need only one), and their calls take turns.
  uint64_t batch_keys = 0;
};

// What the runtime reports about one device.
struct GpuDeviceInfo {
  std::string name;
  int compute_major = 0;
  int compute_minor = 0;
  int multiprocessors = 0;
  uint64_t total_bytes = 0;
  uint64_t free_bytes = 0;
};

// Whether the CUDA backend can run on `device`: built with CUDA, a driver at
// least as new as the runtime, the device present, and the kernels loadable on
// it. When not, *why_not (if given) gets a sentence saying why.
bool gpu_available(std::string* why_not = nullptr, int device = 0);

// Throws Error when the device cannot be used.
GpuDeviceInfo gpu_device_info(int device = 0);

// Throws Error ("not enough device memory: the filter needs X bytes, its
// batch buffers at least Y more and Z stay reserved, but W are free; ...")
// unless a filter of `filter_bytes` and the batch buffers fit in the
// device's free memory (only the filter when a live backend's buffers would
// be shared). Lets a caller refuse before building a filter.
void check_gpu_fits(uint64_t filter_bytes, const GpuOptions& options = {});

// Device bytes a backend with batches of `batch_keys` takes, all of them
// allocated when it is made: the filter's held bytes, and three batch slots
// (one copying in, one computing, one copying back), each of
//   9 bytes a key of the batch (fingerprints and answers), and
//   test_and_set's workspace for one chunk of at most 2^21 keys: 89 bytes
//   a key, a table of 16 bytes a key and CUB's scratch (about 210 MiB in
//   all from 2^21 keys on),
// which backends on one device with the same GpuOptions::batch_keys share.
// About 1.1 GB beside the filter at 2^24 keys. No call allocates more:
// contains, add, test_and_set and device_set_bits work in the slots, and
// callers' device buffers are used in place. The free memory must also
// leave 256 MiB to the runtime (check_gpu_fits counts it).
uint64_t gpu_device_bytes(uint64_t filter_bytes, uint64_t batch_keys);

// The backend make_gpu_backend returns; reach it with dynamic_cast for what
// only a device backend offers.
class GpuBackend : public Backend {
 public:
  using Backend::Backend;
  // Set bits counted on the device, without copying the filter back.
  virtual uint64_t device_set_bits() = 0;
  // Keys per batch in use.
  virtual uint64_t batch_keys() const = 0;
  // The filter's words in device memory, for callers that copy filters on
  // the device (benchmarks restoring a state); valid while the backend lives.
  virtual uint32_t* device_words() = 0;
};

// Copies the filter to the device. Until sync_to_host() the device holds the
// current bits and filter.words() is stale; `filter` must outlive the backend.
// Operations take fingerprints and answers in host memory (pageable or
// pinned) or in this device's memory (cudaMalloc), each detected per call;
// device pointers skip the copies, pinned ones (such as host_buffer()'s) the
// staging copy that pageable ones go through. Where pinned memory cannot be
// had, host_buffer() gives plain memory and pageable buffers are copied
// without staging. Device buffers may be filled by work on
// the legacy default stream (cudaMemcpy, launches on stream 0): the backend
// orders its streams after it. Work on the caller's own non-blocking
// streams must be finished before the call. Every call returns with its
// work done.
// Throws Error when the device is unusable or the filter does not fit.
std::unique_ptr<Backend> make_gpu_backend(Filter& filter, const GpuOptions& options = {});

struct GpuKeySetOptions {
  int device = 0;
  // The most bytes the device table may take; 0 for no limit. A batch that
  // would make it grow past them throws Error of kind set_full.
  uint64_t max_bytes = 0;
  // Keys a pass takes (0: 2^24): a call from host memory goes pass by
  // pass through two buffers of 17 bytes a key on the device, each pass's
  // keys copied in while the pass before is answered.
  uint64_t pass_keys = 0;
};

// The exact set (gdedup/key_set.h) in a device's memory: the same answers,
// exactly sequential within a batch, and the same keys, read back into a
// KeySet for files and checkpoints. Each stored key keeps its 84 bits. A
// hash table of 12 bytes a slot (a quotiented key word, a position word),
// 2^22 slots at least, placed by a random salt of its own so that keys made
// to share their top bits spread as others do, doubled and rehashed on the
// device as its load asks (kernels/set_slots.h, set_kernels.cu,
// src/cuda/set_sizing.h); while it grows the old table and the new one both
// live, and batches from host memory take two buffers of 17 bytes a key of
// a pass (pass_keys, at most 2^24 keys: 544 MiB). Keys and answers may be
// host or device memory (cudaMalloc), detected per call; every call returns
// with its work done. Not yet run on a GPU: only on the CUDA stand-in.
// gpu_key_set_of and key_set_of (below) carry keys from and to a KeySet.
class GpuKeySet {
 public:
  // An empty set, sized so that `expected_keys` fit without growing.
  // Throws Error when the device is unusable (kind no_device), the table
  // would pass options.max_bytes (kind set_full) or the device's free memory
  // (kind device_memory; test_and_insert too, when it grows).
  explicit GpuKeySet(uint64_t expected_keys = 0, const GpuKeySetOptions& options = {});
  ~GpuKeySet();
  GpuKeySet(GpuKeySet&&) noexcept;
  GpuKeySet& operator=(GpuKeySet&&) noexcept;

  // As KeySet::test_and_insert. A call that fails once its keys reach the
  // table (the set would grow past its cap or the device's memory, a device
  // fault) may have added some of them, answered or not: the set then
  // refuses every later call (Error), for_each_key included, as no answer
  // it gave would be sure.
  uint64_t test_and_insert(const Key84* keys, uint64_t n, uint8_t* answers);
  // As KeySet::contains.
  void contains(const Key84* keys, uint64_t n, uint8_t* answers) const;

  uint64_t size() const;   // distinct keys held
  uint64_t bytes() const;  // the device table's bytes
  double load() const;     // keys held over slots
  uint64_t growths() const;
  // Calls `f` with every key, in no particular order, in pieces read back
  // from the device.
  void for_each_key(const std::function<void(const Key84* keys, size_t n)>& f) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Inline, so that the GPU backend's library needs nothing of the engine's:
// these run in the caller's code.
// A device set holding `start`'s keys, sized so that `expected_keys` fit
// without growing; throws as GpuKeySet's constructor and test_and_insert.
inline GpuKeySet gpu_key_set_of(const KeySet& start, uint64_t expected_keys,
                                const GpuKeySetOptions& options = {}) {
  GpuKeySet set(std::max(expected_keys, start.size()), options);
  std::vector<uint8_t> answers;
  start.for_each_sorted([&](const Key84* keys, size_t n) {
    answers.resize(n);
    set.test_and_insert(keys, n, answers.data());
  });
  return set;
}

// The keys of `set` in a host set with `options` (for files and checkpoints).
inline KeySet key_set_of(const GpuKeySet& set, const KeySetOptions& options = {}) {
  KeySet host(0, options);
  set.for_each_key([&](const Key84* keys, size_t n) { host.insert(keys, n); });
  return host;
}

}  // namespace gdedup
