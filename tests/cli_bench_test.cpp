// gdedup bench: runs both workloads, reports rates, and says why the GPU
// was not measured where none is usable.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli_util.h"

namespace {

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

const std::vector<std::string> kBenchArgs{"bench", "--keys", "200K", "--urls", "20K",
                                          "--threads", "2"};

TEST(CliBench, ReportsBothWorkloadsOnTheCpu) {
  REQUIRE_GDEDUP_BIN();
  const cli_test::Result r = cli_test::run(kBenchArgs);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "fingerprints")) << r.out;
  EXPECT_TRUE(has(r.out, "url text")) << r.out;
  EXPECT_TRUE(has(r.out, "cpu (")) << r.out;
  // Either the GPU ran and matched the CPU, or the reason it did not is given.
  EXPECT_TRUE(has(r.out, "identical answers and filter bytes") || has(r.out, "gpu: not measured"))
      << r.out;
}

// bench takes --threads within the same bounds as the jobs: 0 or 100000
// threads is a mistake to name, not to run.
TEST(CliBench, ThreadCountsOutsideTheJobsBoundsAreRefused) {
  REQUIRE_GDEDUP_BIN();
  for (const char* threads : {"0", "100000"}) {
    const cli_test::Result r =
        cli_test::run({"bench", "--keys", "1000", "--urls", "0", "--threads", threads});
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_TRUE(has(r.err, std::string("--threads ") + threads + ": expected a whole number from 1 to 4096"))
        << r.err;
  }
}

// The command with a GPU backend (the CUDA stand-in where no GPU is) must
// measure both workloads there and find them identical to the CPU's.
TEST(CliBench, MeasuresTheGpuWhereTheBuildHasOne) {
  if (cli_test::gpu_binary().empty()) GTEST_SKIP() << "this build has no GPU backend";
  cli_test::RunSpec spec;
  spec.bin = cli_test::gpu_binary();
  spec.args = kBenchArgs;
  const cli_test::Result r = cli_test::run(spec);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(has(r.out, "gpu: not measured")) << r.out;
  EXPECT_TRUE(has(r.out, "fingerprints: GPU/CPU")) << r.out;
  EXPECT_TRUE(has(r.out, "url text: GPU/CPU")) << r.out;
  EXPECT_TRUE(has(r.out, "fingerprints   gpu (")) << r.out;
  EXPECT_TRUE(has(r.out, "url text       gpu (")) << r.out;
  EXPECT_TRUE(has(r.out, "fingerprints: GPU/CPU") &&
              has(r.out.substr(r.out.find("fingerprints: GPU/CPU")),
                  "identical answers and filter bytes\nurl text: GPU/CPU"))
      << r.out;
  EXPECT_TRUE(has(r.out, "url text: GPU/CPU") &&
              has(r.out.substr(r.out.find("url text: GPU/CPU")),
                  "identical answers and filter bytes"))
      << r.out;
}

// Every registered backend is listed with whether it runs here; --backend
// refuses other names and lists the registered ones.
TEST(CliBench, ListsTheRegisteredBackends) {
  REQUIRE_GDEDUP_BIN();
  const cli_test::Result r = cli_test::run({"bench", "--list-backends"});
  ASSERT_EQ(r.status, 0) << r.err;
  // The command adds its own flag to the library's phrase.
  EXPECT_TRUE(has(r.out, "gpu    a CUDA device (--device N)\n")) << r.out;
  ASSERT_TRUE(has(r.out, "cpu    ")) << r.out;
  EXPECT_TRUE(has(r.out.substr(r.out.find("cpu    ")), "\n       available\n")) << r.out;
  EXPECT_FALSE(has(r.out, "fingerprints")) << "measured with --list-backends: " << r.out;
  const cli_test::Result bad = cli_test::run({"dedup", "--backend", "tpu"});
  EXPECT_EQ(bad.status, 2) << bad.err;
  EXPECT_TRUE(has(bad.err, "--backend tpu: expected auto, gpu or cpu")) << bad.err;
  const cli_test::Result help = cli_test::run({"dedup", "--help"});
  EXPECT_TRUE(has(help.out, "auto|gpu|cpu")) << help.out;
  EXPECT_TRUE(has(help.out, "gpu: a CUDA device (--device N)")) << help.out;
}

// --device picks the GPU backend's device; one past the last is refused
// with its number and the number of devices (the stand-in has 1).
TEST(CliBench, ADeviceThatIsNotThereIsRefused) {
  if (cli_test::gpu_binary().empty()) GTEST_SKIP() << "this build has no GPU backend";
  cli_test::RunSpec spec;
  spec.bin = cli_test::gpu_binary();
  spec.args = {"bench", "--keys", "20K", "--urls", "0", "--device", "0"};
  cli_test::Result r = cli_test::run(spec);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "device 0")) << r.out;
  spec.args = {"dedup", "--backend", "gpu", "--device", "7", "--capacity", "1000"};
  spec.input = "a\nb\n";
  r = cli_test::run(spec);
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_TRUE(has(r.err, "there is no CUDA device 7; this machine has 1 (0 to 0)")) << r.err;
  const cli_test::Result cpu =
      cli_test::run({"dedup", "--backend", "cpu", "--device", "1", "--capacity", "1000"});
  EXPECT_EQ(cpu.status, 2) << cpu.err;
  EXPECT_TRUE(has(cpu.err, "--device 1 has no effect with --backend cpu")) << cpu.err;
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
