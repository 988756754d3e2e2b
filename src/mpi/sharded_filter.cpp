// ShardedFilter (gdedup/frontend/mpi.h): this rank's part of each layer, and the
// whole filter's counters and bit count summed over the ranks; a growing
// filter's layers added where one process adds them. Saving and loading
// are in sharded_filter_file.cpp.
#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <utility>

#include "core/bit_count.h"
#include "core/growth_checks.h"
#include "core/layer_stack.h"
#include "core/owner_partition.h"
#include "gdedup/error.h"
#include "gdedup/frontend/mpi.h"
#include "mpi/check.h"
#include "mpi/sharding.h"

namespace gdedup::mpi {

detail::BlockOwners block_owners(uint64_t num_blocks) {
  const unsigned ranks = rank_info().ranks;
  if (ranks > detail::BlockOwners::kMaxOwners) {
    throw UsageError("this job has " + std::to_string(ranks) + " ranks, but a filter is shared "
                     "by at most " + std::to_string(detail::BlockOwners::kMaxOwners) +
                     "; run fewer ranks");
  }
  if (num_blocks < ranks) {
    throw UsageError("the filter has " + std::to_string(num_blocks) + " blocks, fewer than the " +
                     std::to_string(ranks) + " ranks that would share them; plan a larger "
                     "filter (a larger capacity or memory), or run fewer ranks");
  }
  return detail::BlockOwners(num_blocks, ranks);
}

namespace {

// The least fingerprint whose block of `num_blocks` is `block` (< num_blocks).
uint64_t first_fingerprint(uint64_t block, uint64_t num_blocks) {
  const unsigned __int128 scaled = static_cast<unsigned __int128>(block) << 64;
  return static_cast<uint64_t>((scaled + num_blocks - 1) / num_blocks);
}

}  // namespace

std::vector<BlockRange> held_blocks(const std::vector<uint64_t>& layer_blocks, size_t layer,
                                    unsigned ranks) {
  const uint64_t newest = layer_blocks.back();
  const detail::BlockOwners owners(newest, ranks);
  std::vector<BlockRange> held(ranks);
  for (unsigned r = 0; r < ranks; ++r) {
    const uint64_t begin = owners.first_block(r);
    const uint64_t end = owners.first_block(r + 1);
    if (layer + 1 == layer_blocks.size()) {
      held[r] = BlockRange{begin, end};
      continue;
    }
    const uint64_t lowest = first_fingerprint(begin, newest);
    const uint64_t highest =
        end == newest ? std::numeric_limits<uint64_t>::max() : first_fingerprint(end, newest) - 1;
    const uint64_t blocks = layer_blocks[layer];
    held[r] = BlockRange{block_index(lowest, blocks), block_index(highest, blocks) + 1};
  }
  return held;
}

unsigned holder_of(const std::vector<BlockRange>& held, uint64_t block) {
  unsigned r = 0;
  while (held[r].end <= block) ++r;
  return r;
}

namespace {

uint64_t sum(uint64_t mine) {
  uint64_t all = 0;
  check(MPI_Allreduce(&mine, &all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
  return all;
}

}  // namespace

ShardedFilter::ShardedFilter() : parts_(std::make_unique<detail::LayerStack>()) {}

ShardedFilter::ShardedFilter(const FilterParams& params, const FilterCounters& counters)
    : ShardedFilter() {
  add_layer(params, counters);
}

ShardedFilter::ShardedFilter(const GrowthRule& rule, uint64_t seed, uint64_t max_bytes)
    : ShardedFilter() {
  rule.validate();
  growth_ = rule;
  max_bytes_ = max_bytes;
  add_planned_layer(plan_layer(rule, 0), seed);
}

ShardedFilter::ShardedFilter(ShardedFilter&&) noexcept = default;
ShardedFilter::~ShardedFilter() = default;

size_t ShardedFilter::layer_count() const { return layers_.size(); }
const FilterParams& ShardedFilter::layer_params(size_t i) const { return layers_[i].params; }
const detail::BlockOwners& ShardedFilter::owners() const { return *owners_; }

uint64_t ShardedFilter::bytes() const {
  uint64_t total = 0;
  for (const Layer& layer : layers_) total += layer.params.bytes();
  return total;
}

std::vector<uint64_t> ShardedFilter::layer_blocks() const {
  std::vector<uint64_t> blocks;
  for (const Layer& layer : layers_) blocks.push_back(layer.params.num_blocks);
  return blocks;
}

FilterCounters ShardedFilter::counters(size_t i) const {
  FilterCounters out = layers_[i].counters;
  out.insertions += sum(parts_->layer(i).counters().insertions);
  return out;
}

uint64_t ShardedFilter::count_set_bits(size_t i) const {
  const Filter& part = parts_->layer(i);
  const std::vector<BlockRange> held = held_blocks(layer_blocks(), i, rank_info().ranks);
  const unsigned me = rank_info().rank;
  // Blocks two ranks hold are counted by the first.
  const uint64_t begin = me == 0 ? held[0].begin : std::max(held[me].begin, held[me - 1].end);
  uint64_t mine = 0;
  if (begin == held[me].begin) {
    mine = part.count_set_bits();
  } else if (begin < held[me].end) {
    const uint64_t words = part.params().layout.block_words() / 2;  // 64-bit words a block
    const auto* at =
        reinterpret_cast<const uint64_t*>(part.words()) + (begin - held[me].begin) * words;
    mine = detail::count_set_bits(at, (held[me].end - begin) * words, 1);
  }
  return sum(mine);
}

void ShardedFilter::add_layer(const FilterParams& params, const FilterCounters& counters) {
  layers_.push_back(Layer{params, counters});
  // The owners of the newest layer first: block_owners refuses a layer of
  // fewer blocks than ranks.
  owners_ = std::make_unique<detail::BlockOwners>(block_owners(params.num_blocks));
  hold(layers_.size() - 1);
}

void ShardedFilter::hold(size_t i) {
  const BlockRange mine = held_blocks(layer_blocks(), i, rank_info().ranks)[rank_info().rank];
  parts_->add(Filter::part(layers_[i].params, mine.begin, mine.size()));
}

void ShardedFilter::add_planned_layer(const Plan& plan, uint64_t seed) {
  FilterCounters counters;
  counters.planned_capacity = plan.capacity;
  counters.planned_fpr = plan.expected_fpr;
  add_layer(FilterParams{plan.num_blocks, plan.layout, seed}, counters);
}

void ShardedFilter::use_backends(const BackendMaker& make_backend) {
  if (make_backend) return parts_->use_backends(make_backend);
  parts_->use_backends([](Filter& part) { return make_cpu_backend(part); });
}

uint64_t ShardedFilter::test_and_set(const uint64_t* fingerprints, uint64_t count,
                                     uint8_t* answers) {
  return parts_->test_and_set(fingerprints, count, answers);
}

void ShardedFilter::contains(const uint64_t* fingerprints, uint64_t count, uint8_t* present) {
  parts_->contains(fingerprints, count, present);
}

void ShardedFilter::sync_to_host() { parts_->sync_to_host(); }

uint64_t ShardedFilter::next_span() {
  if (!growth_) throw UsageError("a fixed filter does not grow");
  if (growth_refused_) return std::numeric_limits<uint64_t>::max();
  const GrowthRule& rule = *growth_;
  const size_t newest = layers_.size() - 1;
  detail::NewestLayer stand{counters(newest).insertions, layers_[newest].counters.planned_capacity};
  if (keys_offered_ % rule.check_every == 0 && detail::layer_due(rule, stand)) {
    const Plan next = plan_layer(rule, static_cast<uint32_t>(layers_.size()));
    if (max_bytes_ != 0 && bytes() + next.bytes() > max_bytes_) {
      growth_refused_ = true;
      return std::numeric_limits<uint64_t>::max();
    }
    // The newest layer is frozen from here on: its counters become the
    // whole layer's, and its part's count starts again (in place of the
    // resharded part).
    layers_[newest].counters.insertions = stand.insertions;
    parts_->layer(newest).counters().insertions = 0;
    const std::vector<uint64_t> before = layer_blocks();
    add_planned_layer(next, params().seed);
    reshard_older_layers(before);
    stand = detail::NewestLayer{0, next.capacity};
  }
  return detail::keys_before_possible_growth(rule, keys_offered_, stand);
}

}  // namespace gdedup::mpi
