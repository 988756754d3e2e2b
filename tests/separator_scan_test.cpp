// find_separators (io/separator_scan.h) on every SIMD target this build and
// CPU have, against a byte-by-byte scan: random buffers of every length up
// to a few vectors, at every alignment, dense and sparse in separators, with
// the count limit cutting anywhere.
#include <hwy/targets.h>

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "io/separator_scan.h"
#include "test_util.h"

namespace gdedup::io {
namespace {

std::vector<uint32_t> reference(const std::string& data, size_t from, size_t size, char sep,
                                size_t max) {
  std::vector<uint32_t> out;
  for (size_t i = 0; i < size && out.size() < max; ++i) {
    if (data[from + i] == sep) out.push_back(static_cast<uint32_t>(i));
  }
  return out;
}

void check_target() {
  test::Rng rng(7);
  for (char sep : {'\n', '\0', static_cast<char>(0xff)}) {
    for (unsigned density : {2u, 9u, 70u, 1000u}) {
      std::string data(1200, 'x');
      for (char& c : data) c = rng.below(density) == 0 ? sep : static_cast<char>(rng.below(256));
      // Other bytes that are the separator by chance stay: the reference
      // counts them too.
      for (size_t from : {0u, 1u, 7u, 31u, 63u}) {
        for (size_t size = 0; size <= 300; size += 1 + size / 20) {
          for (size_t max : {size_t{1}, size_t{3}, size_t{64}, size_t{100000}}) {
            const std::vector<uint32_t> want = reference(data, from, size, sep, max);
            std::vector<uint32_t> got(max < 100000 ? max : size + 1, 0xdeadbeef);
            const size_t n = find_separators(data.data() + from, size, sep, got.data(), max);
            got.resize(n);
            ASSERT_EQ(got, want) << "separator " << int(sep) << ", 1 in " << density
                                 << ", offset " << from << ", size " << size << ", max " << max;
          }
        }
      }
    }
  }
}

TEST(SeparatorScan, EveryTargetMatchesAByteByByteScan) {
  const std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
  ASSERT_FALSE(targets.empty());
  for (int64_t target : targets) {
    SCOPED_TRACE(hwy::TargetName(target));
    hwy::SetSupportedTargetsForTest(target);
    // The dispatch really runs the target under test.
    EXPECT_STREQ(separator_scan_target(), hwy::TargetName(target));
    check_target();
  }
  hwy::SetSupportedTargetsForTest(0);
}

TEST(SeparatorScan, NothingFoundInAnEmptyBufferOrWithNoRoom) {
  uint32_t out[1] = {7};
  EXPECT_EQ(find_separators("\n\n", 0, '\n', out, 1), 0u);
  EXPECT_EQ(find_separators("\n\n", 2, '\n', out, 0), 0u);
  EXPECT_EQ(out[0], 7u);
}

}  // namespace
}  // namespace gdedup::io
