// The filter: parameters, the bit array in host memory, and its counters.
// Operations on fingerprints live in backends (backend.h); this class owns the
// bytes that are saved, loaded and compared, or, for a read-only filter,
// keeps alive bytes it does not own (a mapped filter file, filter_file.h).
#pragma once

#include <cstdint>
#include <memory>

#include "gdedup/fingerprint.h"
#include "gdedup/layout.h"
#include "gdedup/planner.h"

namespace gdedup {

// Everything that fixes which bits a key sets. Two filters can be merged, and
// a saved filter reused, only when these are equal.
struct FilterParams {
  uint64_t num_blocks = 0;
  Layout layout{256, 8};
  uint64_t seed = 0;

  // Throws UsageError naming the bad field (unsupported layout, no blocks,
  // a size beyond the 64-bit address space).
  void validate() const;
  uint64_t bytes() const { return num_blocks * (layout.block_bits / 8); }
  uint64_t words() const { return num_blocks * layout.block_words(); }
  bool operator==(const FilterParams& o) const {
    return num_blocks == o.num_blocks && layout == o.layout && seed == o.seed;
  }
  bool operator!=(const FilterParams& o) const { return !(*this == o); }
};

// Saved with the filter; they do not affect which bits are set.
struct FilterCounters {
  uint64_t insertions = 0;      // keys added, or found new by test_and_set
  uint64_t planned_capacity = 0;
  double planned_fpr = 0.0;
};

// Distinct keys inserted into a filter of `params` with `set_bits` bits
// set, estimated from the fill (infinite when every bit is set), and the
// false-positive rate a query then sees: Filter::estimated_keys and
// current_fpr for a filter whose bits are counted elsewhere (spread over
// the ranks of an MPI job).
double estimated_keys(const FilterParams& params, uint64_t set_bits);
// The same from the bits still clear (a fraction of a bit allowed: a bound
// on the count, not a count).
double estimated_keys_at_clear(const FilterParams& params, double clear_bits);
double fpr_at_fill(const FilterParams& params, uint64_t set_bits);

class Filter {
 public:
  // A zeroed filter. Large filters are backed by transparent huge pages.
  explicit Filter(const FilterParams& params);
  static Filter from_plan(const Plan& plan, uint64_t seed = kDefaultSeed);

  // A read-only filter over `words` (params.words() of them, 64-byte
  // aligned), which it neither owns nor writes: e.g. a bit array of a
  // filter file mapped read-only (map_filter_file). `keeper` keeps them
  // alive for the life of the filter. The memory may be mapped PROT_READ:
  // merge() into it and the CPU backend's add and test_and_set refuse it
  // (UsageError), and any other write through words() faults.
  static Filter read_only_view(const FilterParams& params, const uint32_t* words,
                               std::shared_ptr<const void> keeper);
  // A zeroed part of the filter of `params`: blocks [first_block,
  // first_block + held_blocks) only, in memory of their size (the part one
  // rank of an MPI job holds). Backends work on it as on a whole filter,
  // for keys whose blocks it holds; it cannot be saved, and merge() takes
  // only a part of the same blocks. Throws UsageError for a range outside
  // the filter or an empty one.
  static Filter part(const FilterParams& params, uint64_t first_block, uint64_t held_blocks);

  Filter(Filter&&) noexcept;
  Filter& operator=(Filter&&) noexcept;
  ~Filter();

  const FilterParams& params() const { return params_; }
  FilterCounters& counters() { return counters_; }
  const FilterCounters& counters() const { return counters_; }

  // Whether the bits are another's, never to be written (read_only_view).
  bool read_only() const { return keeper_ != nullptr; }

  // The blocks held: all of them, except in a part().
  uint64_t first_block() const { return first_block_; }
  uint64_t held_blocks() const { return held_blocks_; }
  bool whole() const { return held_blocks_ == params_.num_blocks; }
  uint64_t held_bytes() const { return held_blocks_ * (params_.layout.block_bits / 8); }

  // The bit array: params().words() little-endian 32-bit words (those of the
  // held blocks in a part()).
  uint32_t* words() { return words_; }
  const uint32_t* words() const { return words_; }
  // The bit array as the kernels address it.
  FilterRef ref() {
    return FilterRef{words_, params_.num_blocks, params_.layout, first_block_, held_blocks_};
  }

  // OR of `other` into this filter. Throws UsageError, naming the parameter
  // that differs, unless the parameters are identical, and for a read-only
  // filter.
  void merge(const Filter& other);

  // Of the held blocks.
  uint64_t count_set_bits() const;
  // Distinct keys inserted, estimated from the fill (exact in expectation
  // for the split-block layout). A part() has no such figure of its own:
  // UsageError (sum its bits with the other parts', then ::estimated_keys).
  double estimated_keys() const;
  // The false-positive rate a query sees now, from the estimated keys; a
  // part() throws as estimated_keys() does.
  double current_fpr() const;

 private:
  Filter() = default;  // for read_only_view
  void release_words() noexcept;

  // Throws UsageError unless this is the whole filter; `what` names the use.
  void require_whole(const char* what) const;

  FilterParams params_;
  FilterCounters counters_;
  uint64_t first_block_ = 0;
  uint64_t held_blocks_ = 0;  // params_.num_blocks, except in a part()
  uint32_t* words_ = nullptr;
  std::shared_ptr<const void> keeper_;  // set: words_ are not ours (read_only_view)
};

}  // namespace gdedup
