// Filter::part on the GPU backend (an MPI rank's blocks on its GPU): parts
// answer as the whole filter on the CPU backend, and hold its bits.
#include <gtest/gtest.h>

#include "filter_part_checks.h"
#include "gdedup/gpu.h"
#include "require_gpu.h"
#include "test_util.h"

namespace gdedup {
namespace {

TEST(GpuFilterPart, GpuBackendsOnPartsAnswerAsTheWholeFilterOnTheCpu) {
  GDEDUP_REQUIRE_GPU();
  for (const Layout& layout : kLayouts) {
    for (unsigned parts : {1u, 3u}) {
      // The whole filter's answers come from the same maker; check them
      // against the CPU backend's too.
      const std::vector<uint64_t> keys = test::keys_with_duplicates(30000, 9000, parts);
      test::expect_parts_answer_as_the_whole(
          [](Filter& f) { return make_gpu_backend(f); }, layout, 999, parts, keys);
      test::expect_parts_answer_as_the_whole(test::cpu_layers(), layout, 999, parts, keys);
    }
  }
}

}  // namespace
}  // namespace gdedup
