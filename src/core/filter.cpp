#include "gdedup/filter.h"

#include <algorithm>
#include <cstdint>
#include <cmath>
#include <limits>
#include <string>
#include <thread>
#include <utility>

#include "core/bit_count.h"
#include "core/host_memory.h"
#include "gdedup/error.h"

namespace gdedup {

namespace {

// kLayouts in words: "256-bit blocks with k = 8 or 16 and 512-bit blocks
// with k = 16 or 32" (the list is grouped by block size).
std::string supported_layouts() {
  std::string text;
  for (size_t i = 0; i < kLayoutCount; ++i) {
    const Layout& l = kLayouts[i];
    const bool first_of_size = i == 0 || kLayouts[i - 1].block_bits != l.block_bits;
    if (first_of_size) {
      text += (i == 0 ? "" : " and ") + std::to_string(l.block_bits) + "-bit blocks with k = ";
    } else {
      text += " or ";
    }
    text += std::to_string(l.k);
  }
  return text;
}

}  // namespace

void FilterParams::validate() const {
  if (!is_supported_layout(layout)) {
    throw UsageError("layout with " + std::to_string(layout.block_bits) +
                     "-bit blocks and k = " + std::to_string(layout.k) +
                     " is not supported; supported are " + supported_layouts());
  }
  if (num_blocks == 0) throw UsageError("a filter needs at least one block; got 0 blocks");
  const uint64_t block_bytes = layout.block_bits / 8;
  if (num_blocks > (uint64_t{1} << 47) / block_bytes) {
    throw UsageError("a filter of " + std::to_string(num_blocks) + " blocks of " +
                     std::to_string(layout.block_bits) + " bits exceeds the 128 TiB limit");
  }
}

Filter::Filter(const FilterParams& params) : params_(params) {
  params_.validate();
  held_blocks_ = params_.num_blocks;
  words_ = static_cast<uint32_t*>(detail::allocate_zeroed(params_.bytes()));
}

Filter Filter::part(const FilterParams& params, uint64_t first_block, uint64_t held_blocks) {
  params.validate();
  if (held_blocks == 0 || first_block > params.num_blocks ||
      held_blocks > params.num_blocks - first_block) {
    throw UsageError("blocks " + std::to_string(first_block) + " .. " +
                     std::to_string(first_block + held_blocks) + " are not a part of a filter "
                     "of " + std::to_string(params.num_blocks) + " blocks");
  }
  Filter filter;
  filter.params_ = params;
  filter.first_block_ = first_block;
  filter.held_blocks_ = held_blocks;
  filter.words_ = static_cast<uint32_t*>(detail::allocate_zeroed(filter.held_bytes()));
  return filter;
}

Filter Filter::from_plan(const Plan& plan, uint64_t seed) {
  Filter filter(FilterParams{plan.num_blocks, plan.layout, seed});
  filter.counters_.planned_capacity = plan.capacity;
  filter.counters_.planned_fpr = plan.expected_fpr;
  return filter;
}

Filter Filter::read_only_view(const FilterParams& params, const uint32_t* words,
                              std::shared_ptr<const void> keeper) {
  params.validate();
  if (words == nullptr || keeper == nullptr ||
      reinterpret_cast<uintptr_t>(words) % 64 != 0) {
    throw UsageError("a read-only filter needs a bit array aligned to 64 "
                     "bytes and an owner that keeps it");
  }
  // Private: a Filter otherwise always owns zeroed memory.
  Filter filter;
  filter.params_ = params;
  filter.held_blocks_ = params.num_blocks;
  filter.words_ = const_cast<uint32_t*>(words);
  filter.keeper_ = std::move(keeper);
  return filter;
}

Filter::Filter(Filter&& other) noexcept
    : params_(other.params_), counters_(other.counters_), first_block_(other.first_block_),
      held_blocks_(other.held_blocks_), words_(std::exchange(other.words_, nullptr)),
      keeper_(std::move(other.keeper_)) {}

Filter& Filter::operator=(Filter&& other) noexcept {
  if (this != &other) {
    release_words();
    params_ = other.params_;
    counters_ = other.counters_;
    first_block_ = other.first_block_;
    held_blocks_ = other.held_blocks_;
    words_ = std::exchange(other.words_, nullptr);
    keeper_ = std::move(other.keeper_);
  }
  return *this;
}

Filter::~Filter() { release_words(); }

void Filter::release_words() noexcept {
  if (keeper_ == nullptr) detail::release(words_, held_bytes());
  keeper_.reset();
  words_ = nullptr;
}

void Filter::merge(const Filter& other) {
  const FilterParams& a = params_;
  const FilterParams& b = other.params_;
  auto refuse = [](const std::string& what, const std::string& mine, const std::string& theirs) {
    throw UsageError("cannot merge filters with different " + what + " (" + mine +
                     " and " + theirs + "); only filters with identical parameters can be merged");
  };
  if (a.layout.block_bits != b.layout.block_bits) {
    refuse("block sizes", std::to_string(a.layout.block_bits) + " bits",
           std::to_string(b.layout.block_bits) + " bits");
  }
  if (a.layout.k != b.layout.k) refuse("bits per key", "k = " + std::to_string(a.layout.k), "k = " + std::to_string(b.layout.k));
  if (a.num_blocks != b.num_blocks) {
    refuse("block counts", std::to_string(a.num_blocks), std::to_string(b.num_blocks));
  }
  if (a.seed != b.seed) refuse("seeds", std::to_string(a.seed), std::to_string(b.seed));
  if (first_block_ != other.first_block_ || held_blocks_ != other.held_blocks_) {
    refuse("blocks held", std::to_string(held_blocks_) + " from block " +
                              std::to_string(first_block_),
           std::to_string(other.held_blocks_) + " from block " +
               std::to_string(other.first_block_));
  }
  if (read_only()) {
    throw UsageError("cannot merge into a read-only filter (a mapped filter file): its bits "
                     "are shared, never written; load the file without mapping to change it");
  }
  const uint64_t n = held_blocks_ * a.layout.block_words();
  for (uint64_t i = 0; i < n; ++i) words_[i] |= other.words_[i];
  counters_.insertions += other.counters_.insertions;
}

uint64_t Filter::count_set_bits() const {
  // Block sizes are multiples of 64 bits, so the array is whole 64-bit words.
  const auto* p = reinterpret_cast<const uint64_t*>(words_);
  const uint64_t n = held_blocks_ * params_.layout.block_words() / 2;
  // One core counts about 3 GB/s: a billion-key filter (2.7 GiB) would take
  // a second at the end of every job, so large arrays are split over threads.
  constexpr uint64_t kPerThread = uint64_t{8} << 20;  // 64 MiB of words
  const unsigned parts = static_cast<unsigned>(std::min<uint64_t>(
      std::max(1u, std::thread::hardware_concurrency()), n / kPerThread + 1));
  return detail::count_set_bits(p, n, parts);
}

double estimated_keys(const FilterParams& params, uint64_t set_bits) {
  const double total = static_cast<double>(params.words()) * kWordBits;
  return estimated_keys_at_clear(params, total - static_cast<double>(set_bits));
}

double estimated_keys_at_clear(const FilterParams& params, double clear) {
  // Each key sets c bits in each word of its block, so a bit stays clear with
  // probability E[(31/32)^{cL}] = exp(-lambda (1 - (31/32)^c)), L ~ Poisson(lambda).
  const double total = static_cast<double>(params.words()) * kWordBits;
  if (clear <= 0) return std::numeric_limits<double>::infinity();
  clear = std::min(clear, total);
  const double per_word = params.layout.bits_per_word();
  const double lambda = -std::log(clear / total) / (1.0 - std::pow(31.0 / 32.0, per_word));
  return lambda * static_cast<double>(params.num_blocks);
}

double fpr_at_fill(const FilterParams& params, uint64_t set_bits) {
  const double keys = estimated_keys(params, set_bits);
  if (std::isinf(keys)) return 1.0;
  return layout_fpr(params.layout, keys / static_cast<double>(params.num_blocks));
}

void Filter::require_whole(const char* what) const {
  if (whole()) return;
  throw UsageError(std::string(what) + " needs the whole filter, not the part of " +
                   std::to_string(held_blocks_) + " of its " +
                   std::to_string(params_.num_blocks) + " blocks that this one holds");
}

double Filter::estimated_keys() const {
  require_whole("estimating the keys from the fill");
  return gdedup::estimated_keys(params_, count_set_bits());
}

double Filter::current_fpr() const {
  require_whole("the false-positive rate from the fill");
  return fpr_at_fill(params_, count_set_bits());
}

}  // namespace gdedup
