// The false-positive rate of the split-block layout, exactly.
//
// A key's block holds L other keys, L ~ Poisson(keys_per_block). In each of
// the W words of the block every key sets c bits (c = k / W) at positions that
// are uniform and independent; a query is a false positive when all its c
// bits in all W words are set. With X the set bits of one word after c*L
// throws into 32 positions, P(fp | L) = E[(X/32)^c]^W, and
//   c = 1: E[X/32]     = 1 - q^t                         (t = L, q = 31/32)
//   c = 2: E[(X/32)^2] = (1024 - 64 E[Z] + E[Z^2]) / 1024 with Z = 32 - X the
//          empty positions after t = 2L throws: E[Z] = 32 q^t and
//          E[Z(Z-1)] = 32 * 31 * (30/32)^t.
// The classic formula (1 - e^{-kn/m})^k underestimates this by 10-40% at
// these sizes because it ignores both the uneven block loads and the small
// words.
#include "gdedup/planner.h"

#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "gdedup/error.h"

namespace gdedup {
namespace {

// 128 TiB: more than any machine's memory, and well inside 64-bit offsets.
constexpr uint64_t kMaxFilterBytes = uint64_t{1} << 47;

double fpr_given_load(const Layout& layout, double load) {
  const uint32_t words = layout.block_words();
  const uint32_t per_word = layout.bits_per_word();
  const double q = 31.0 / 32.0;
  double word_fp;
  if (per_word == 1) {
    word_fp = 1.0 - std::pow(q, load);
  } else {
    const double t = 2.0 * load;
    const double empty = 32.0 * std::pow(q, t);
    const double empty_pairs = 32.0 * 31.0 * std::pow(30.0 / 32.0, t);
    word_fp = (1024.0 - 64.0 * empty + empty_pairs + empty) / 1024.0;
  }
  return std::pow(word_fp, words);
}

std::string format_value(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

void check_block_bits(uint32_t block_bits) {
  bool known = block_bits == 0;
  for (const Layout& l : kLayouts) known |= l.block_bits == block_bits;
  if (!known) {
    throw UsageError("block size " + std::to_string(block_bits) +
                     " bits is not supported; use 256 or 512");
  }
}

bool layout_allowed(const Layout& layout, uint32_t block_bits) {
  return block_bits == 0 || layout.block_bits == block_bits;
}

// The fewest blocks, at most max_blocks, whose FPR at `capacity` keys is at
// most `target_fpr`; 0 when max_blocks are not enough. The FPR falls as
// blocks grow, so the answer is bracketed by halving or doubling from the
// classic formula's size, then bisected. Starting there rather than at one
// block keeps every evaluation near the answer's load (tens of keys a block,
// about a hundred Poisson terms) instead of at loads of millions (4,096
// terms each), for the same answer.
uint64_t smallest_blocks(const Layout& layout, uint64_t capacity, double target_fpr,
                         uint64_t max_blocks) {
  const auto meets = [&](uint64_t blocks) {
    return expected_fpr(layout, blocks, capacity) <= target_fpr;
  };
  const double classic_bits = -std::log(target_fpr) / (std::log(2.0) * std::log(2.0));
  const double guess = std::ceil(static_cast<double>(capacity) * classic_bits / layout.block_bits);
  uint64_t hi = guess < static_cast<double>(max_blocks)
                    ? std::max<uint64_t>(1, static_cast<uint64_t>(guess))
                    : max_blocks;
  uint64_t lo = 0;  // fails the target (0 blocks always do)
  if (meets(hi)) {
    while (hi > 1 && meets(hi / 2)) hi /= 2;
    lo = hi / 2;
  } else {
    do {
      if (hi >= max_blocks) return 0;
      lo = hi;
      hi = std::min(hi * 2, max_blocks);
    } while (!meets(hi));
  }
  while (hi - lo > 1) {
    const uint64_t mid = lo + (hi - lo) / 2;
    (meets(mid) ? hi : lo) = mid;
  }
  return hi;
}

}  // namespace

double Plan::bits_per_key() const {
  return capacity == 0 ? 0.0 : 8.0 * static_cast<double>(bytes()) / capacity;
}

double layout_fpr(const Layout& layout, double keys_per_block) {
  if (keys_per_block <= 0) return 0.0;
  const double lambda = keys_per_block;
  // Sum the Poisson weights where they are not negligible (12 standard
  // deviations around the mean): the tail beyond holds less than 1e-30.
  const double spread = 12.0 * std::sqrt(lambda) + 30.0;
  const auto first = static_cast<uint64_t>(std::max(0.0, std::floor(lambda - spread)));
  const auto last = static_cast<uint64_t>(std::ceil(lambda + spread));
  // Past a few thousand terms the weights vary smoothly from one load to the
  // next, so a Riemann sum with a coarser step is exact to many digits and
  // keeps the cost bounded when a tiny filter meets billions of keys.
  const uint64_t step = std::max<uint64_t>(1, (last - first) / 4096);
  const double log_lambda = std::log(lambda);
  double sum = 0.0;
  for (uint64_t l = first; l <= last; l += step) {
    const double d = static_cast<double>(l);
    const double weight = std::exp(d * log_lambda - lambda - std::lgamma(d + 1.0));
    sum += weight * static_cast<double>(step) * fpr_given_load(layout, d);
  }
  return std::min(sum, 1.0);
}

double expected_fpr(const Layout& layout, uint64_t num_blocks, uint64_t keys) {
  if (num_blocks == 0) return 1.0;
  return layout_fpr(layout, static_cast<double>(keys) / static_cast<double>(num_blocks));
}

Plan plan_for_capacity(uint64_t capacity, double target_fpr, uint32_t block_bits) {
  if (capacity == 0) {
    throw UsageError("capacity 0 is not a number of keys to plan for; give the number of distinct keys expected (at least 1)");
  }
  if (!(target_fpr > 0.0 && target_fpr < 1.0)) {
    throw UsageError("false-positive rate " + format_value(target_fpr) +
                     " is out of range; it must be above 0 and below 1 (e.g. 1e-4)");
  }
  check_block_bits(block_bits);
  bool found = false;
  Plan best{};
  for (const Layout& layout : kLayouts) {
    if (!layout_allowed(layout, block_bits)) continue;
    const uint64_t block_bytes = layout.block_bits / 8;
    const uint64_t max_blocks = kMaxFilterBytes / block_bytes;
    const uint64_t hi = smallest_blocks(layout, capacity, target_fpr, max_blocks);
    if (hi == 0) continue;
    Plan plan{layout, hi, capacity, expected_fpr(layout, hi, capacity)};
    if (!found || plan.bytes() < best.bytes() ||
        (plan.bytes() == best.bytes() && plan.expected_fpr < best.expected_fpr)) {
      best = plan;
      found = true;
    }
  }
  if (!found) {
    throw UsageError("a filter for " + std::to_string(capacity) +
                         " keys at false-positive rate " + format_value(target_fpr) +
                         " would need more than 128 TiB; a higher false-positive rate or a "
                         "smaller capacity needs less",
                     ErrorKind::plan_infeasible, kMaxFilterBytes + 1, kMaxFilterBytes);
  }
  return best;
}

Plan plan_for_memory(uint64_t budget_bytes, uint64_t capacity, uint32_t block_bits) {
  if (capacity == 0) {
    throw UsageError("capacity 0 is not a number of keys to plan for; give the number of distinct keys expected (at least 1)");
  }
  check_block_bits(block_bits);
  if (budget_bytes > kMaxFilterBytes) {
    throw UsageError("memory budget " + std::to_string(budget_bytes) +
                     " bytes is beyond the 128 TiB a filter may use");
  }
  bool found = false;
  Plan best{};
  for (const Layout& layout : kLayouts) {
    if (!layout_allowed(layout, block_bits)) continue;
    const uint64_t blocks = budget_bytes / (layout.block_bits / 8);
    if (blocks == 0) continue;
    Plan plan{layout, blocks, capacity, expected_fpr(layout, blocks, capacity)};
    if (!found || plan.expected_fpr < best.expected_fpr) {
      best = plan;
      found = true;
    }
  }
  if (!found) {
    throw UsageError("memory budget " + std::to_string(budget_bytes) +
                     " bytes is less than one filter block (" +
                     std::to_string(block_bits == 512 ? 64 : 32) + " bytes)");
  }
  return best;
}

}  // namespace gdedup
