// Backends run the filter operations on spans of 64-bit fingerprints. They
// know nothing of records or files. Every backend gives the same answers and
// leaves the same bits as the scalar reference, for any batch size and thread
// count (docs/FORMAT.md).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "gdedup/error.h"
#include "gdedup/filter.h"
#include "gdedup/host_buffer.h"

namespace gdedup {

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;

  // Sets the bits of every key. Order-free. Counts `count` insertions.
  // Throws UsageError for a read-only filter (Filter::read_only_view).
  void add(const uint64_t* fingerprints, uint64_t count) {
    check_writable();
    add_keys(fingerprints, count);
    if (counters_ != nullptr) counters_->insertions += count;
  }
  // present[i] = 1 when all bits of key i are set, else 0. Read-only.
  virtual void contains(const uint64_t* fingerprints, uint64_t count,
                        uint8_t* present) = 0;
  // Sequential semantics: for i = 0, 1, ... was_present[i] = whether all bits
  // of key i were set before it (including by keys j < i of this call), then
  // sets them. Returns the number of keys that were new, and counts them as
  // insertions. Throws UsageError for a read-only filter, as add.
  uint64_t test_and_set(const uint64_t* fingerprints, uint64_t count, uint8_t* was_present) {
    check_writable();
    const uint64_t fresh = test_and_set_keys(fingerprints, count, was_present);
    if (counters_ != nullptr) counters_->insertions += fresh;
    return fresh;
  }
  // Makes filter.words() current (a device backend copies its bits back).
  virtual void sync_to_host() = 0;

  // Host memory of `bytes` for fingerprints and answers that the caller
  // passes to this backend call after call (host_buffer.h): pinned for the
  // GPU backend, so that its copies skip the staging buffers; plain memory
  // aligned to 64 bytes for the others, and from the GPU backend when no
  // pinned memory can be had. Throws Error of kind out_of_memory only when
  // no memory at all can be had. The buffer may outlive the backend.
  virtual HostBuffer host_buffer(uint64_t bytes) const { return HostBuffer::plain(bytes); }

 protected:
  // Insertions are counted here, by add and test_and_set, and nowhere else;
  // implementations count nothing. A backend that holds the bits of a
  // filter passes that filter: its counters count, and keys are refused
  // when its bits are read-only. A backend made of other backends
  // counts each key once: in its own filter when it has one (shards, each
  // with a filter of its own, count theirs too), or, without one (the layers
  // of a growing filter), only through its parts (the default constructor).
  explicit Backend(Filter& filter) : filter_(&filter), counters_(&filter.counters()) {}
  Backend() = default;

  virtual void add_keys(const uint64_t* fingerprints, uint64_t count) = 0;
  virtual uint64_t test_and_set_keys(const uint64_t* fingerprints, uint64_t count,
                                     uint8_t* was_present) = 0;

 private:
  // A read-only filter's bits may be a PROT_READ mapping.
  void check_writable() const {
    if (filter_ != nullptr && filter_->read_only()) {
      throw UsageError("cannot add keys to a read-only filter (a mapped filter file): its "
                       "bits are shared, never written; load the file without mapping to add "
                       "keys");
    }
  }

  const Filter* filter_ = nullptr;
  FilterCounters* counters_ = nullptr;
};

// Which CPU code runs the operations: the vector code (kAuto, kSimd) or the
// portable scalar code of layout.h (kScalar). Both give the same bits.
enum class CpuKernel { kAuto, kScalar, kSimd };

struct CpuOptions {
  unsigned threads = 1;  // 0 = one per hardware thread
  CpuKernel kernel = CpuKernel::kAuto;
  // A batch is split over threads only when each gets at least this many
  // keys: below 16,384 a thread start (~20 us) costs more than it saves.
  // Tests lower it so that small batches run on several threads too.
  uint64_t min_keys_per_thread = uint64_t{1} << 14;
  // The SIMD instruction set the vector code runs on, by Highway's name
  // ("AVX3", "AVX2", "SSE4", "EMU128", ...); "" for the best the processor
  // supports. make_cpu_backend throws UsageError for one it does not offer.
  // (Initialized so that {threads, kernel} stays a complete initializer.)
  std::string simd_target = "";
};

// The CPU backend works on filter.words() in place; `filter` must outlive it.
std::unique_ptr<Backend> make_cpu_backend(Filter& filter,
                                          const CpuOptions& options = {});

// The name of the best SIMD target this processor supports (e.g. "AVX2").
std::string cpu_simd_target();

}  // namespace gdedup
