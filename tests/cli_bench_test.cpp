// gdedup bench: runs both workloads, reports rates, and says why the GPU
// was not measured where none is usable.
#include <string>

#include <gtest/gtest.h>

#include "cli_util.h"

namespace {

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(CliBench, ReportsBothWorkloadsOnTheCpu) {
  REQUIRE_GDEDUP_BIN();
  const cli_test::Result r =
      cli_test::run({"bench", "--keys", "200K", "--urls", "20K", "--threads", "2"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "fingerprints")) << r.out;
  EXPECT_TRUE(has(r.out, "url text")) << r.out;
  EXPECT_TRUE(has(r.out, "cpu (")) << r.out;
  // Either the GPU ran and matched the CPU, or the reason it did not is given.
  EXPECT_TRUE(has(r.out, "identical answers and filter bytes") || has(r.out, "gpu: not measured"))
      << r.out;
}

TEST(CliBench, JsonAndSkippedWorkloads) {
  REQUIRE_GDEDUP_BIN();
  const cli_test::Result r = cli_test::run({"bench", "--keys", "0", "--urls", "5K", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "\"workload\": \"url text\"")) << r.out;
  EXPECT_FALSE(has(r.out, "fingerprints")) << r.out;
  EXPECT_TRUE(has(r.out, "\"items_per_second\"")) << r.out;
}

TEST(CliBench, BadCountIsAUsageError) {
  REQUIRE_GDEDUP_BIN();
  const cli_test::Result r = cli_test::run({"bench", "--keys", "lots"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "gdedup: ")) << r.err;
  EXPECT_TRUE(has(r.err, "--keys")) << r.err;
}

}  // namespace
