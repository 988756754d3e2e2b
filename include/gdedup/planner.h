// Sizing a filter: from (expected distinct keys, target false-positive rate)
// or (byte budget, expected keys) to a layout, using the exact false-positive
// rate of the split-block layout (docs/FORMAT.md), not the classic formula.
#pragma once

#include <cstdint>

#include "gdedup/layout.h"

namespace gdedup {

// What the planner decided, and what it promises.
struct Plan {
  Layout layout;
  uint64_t num_blocks;
  uint64_t capacity;    // the distinct keys the plan was made for
  double expected_fpr;  // false-positive rate once `capacity` keys are in

  uint64_t bytes() const { return num_blocks * (layout.block_bits / 8); }
  double bits_per_key() const;
};

// Exact false-positive rate of a query against a filter of `layout` whose
// blocks hold Poisson(keys_per_block) keys each.
double layout_fpr(const Layout& layout, double keys_per_block);

// False-positive rate after `keys` distinct keys went into `num_blocks` blocks.
double expected_fpr(const Layout& layout, uint64_t num_blocks, uint64_t keys);

// The smallest filter whose FPR at `capacity` keys is at most `target_fpr`.
// block_bits = 0 lets the planner choose 256 or 512; otherwise it is fixed.
// Throws UsageError for capacity 0, target_fpr outside (0, 1), a filter that
// would exceed the 64-bit address space, or an unknown block size.
Plan plan_for_capacity(uint64_t capacity, double target_fpr,
                       uint32_t block_bits = 0);

// The layout with the lowest FPR at `capacity` keys within `budget_bytes`.
// Throws UsageError when the budget holds less than one block, or capacity 0.
Plan plan_for_memory(uint64_t budget_bytes, uint64_t capacity,
                     uint32_t block_bits = 0);

}  // namespace gdedup
