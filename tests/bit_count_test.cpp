// The split bit count: the same total as a bit-by-bit count for any number
// of slices, on helpers that stay from one count to the next.
#include <gtest/gtest.h>

#include <bitset>
#include <cstdint>
#include <filesystem>
#include <iterator>
#include <random>
#include <vector>

#include "core/bit_count.h"

namespace gdedup::detail {
namespace {

uint64_t bit_by_bit(const std::vector<uint64_t>& words) {
  uint64_t total = 0;
  for (uint64_t w : words) total += std::bitset<64>(w).count();
  return total;
}

size_t threads_of_this_process() {
  const std::filesystem::directory_iterator tasks("/proc/self/task");
  return static_cast<size_t>(std::distance(begin(tasks), end(tasks)));
}

TEST(BitCount, AnySplitCountsWhatABitByBitCountDoes) {
  std::mt19937_64 rng(14);
  for (uint64_t n : {0, 1, 5, 64, 1000, 4099}) {
    std::vector<uint64_t> words(n);
    for (uint64_t& w : words) w = rng() & rng();  // about a quarter of the bits set
    const uint64_t expected = bit_by_bit(words);
    for (unsigned parts = 1; parts <= 6; ++parts) {
      EXPECT_EQ(count_set_bits(words.data(), n, parts), expected)
          << n << " words in " << parts << " parts";
    }
  }
}

TEST(BitCount, HelpersStayForTheNextCount) {
  const std::vector<uint64_t> words(4096, 0x0101010101010101u);
  ASSERT_EQ(count_set_bits(words.data(), words.size(), 4), 8u * 4096);
  // Helpers joined at the end of the count would leave the caller alone.
  const size_t after_first = threads_of_this_process();
  EXPECT_GE(after_first, 4u) << "the caller and 3 parked helpers";
  for (int call = 0; call < 20; ++call) {
    ASSERT_EQ(count_set_bits(words.data(), words.size(), 4), 8u * 4096);
    ASSERT_EQ(threads_of_this_process(), after_first) << "count " << call << " started threads";
  }
}

}  // namespace
}  // namespace gdedup::detail
