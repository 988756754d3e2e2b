// The GPU backend on a mapped filter file (map_filter_file): it copies the
// read-only bits to the device and answers as the CPU backend does on a
// loaded copy; it takes no keys, and syncing it back writes nothing to the
// read-only mapping.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "file_util.h"
#include "gdedup/backend.h"
#include "gdedup/error.h"
#include "gdedup/filter_file.h"
#include "gdedup/gpu.h"
#include "require_gpu.h"

namespace gdedup {
namespace {

class GpuMappedFilterTest : public test::TempDirTest {
 protected:
  GpuMappedFilterTest() : TempDirTest("gdedup_gpu_mapped") {}
};

TEST_F(GpuMappedFilterTest, AnswersAsTheLoadedFilterAndTakesNoKeys) {
  GDEDUP_REQUIRE_GPU();
  save_filter(test::filter_with_keys(FilterParams{3000, {256, 8}, kDefaultSeed}, 5000, 1e-3),
              path("f"), KeyRules{});
  FilterFile mapped = map_filter_file(path("f"));
  Filter loaded = load_filter(path("f"));
  ASSERT_TRUE(mapped.layers[0].read_only());
  std::vector<uint64_t> fps;
  for (int i = 0; i < 20000; ++i) {
    const std::string key = "key-" + std::to_string(i);
    fps.push_back(fingerprint(key.data(), key.size(), kDefaultSeed));
  }
  std::unique_ptr<Backend> gpu = make_gpu_backend(mapped.layers[0], GpuOptions{0, 4096});
  std::vector<uint8_t> on_gpu(fps.size()), on_cpu(fps.size());
  gpu->contains(fps.data(), fps.size(), on_gpu.data());
  make_cpu_backend(loaded)->contains(fps.data(), fps.size(), on_cpu.data());
  EXPECT_EQ(on_gpu, on_cpu);

  std::vector<uint8_t> present(fps.size());
  EXPECT_THROW(gpu->test_and_set(fps.data(), fps.size(), present.data()), UsageError);
  EXPECT_THROW(gpu->add(fps.data(), fps.size()), UsageError);
  gpu->sync_to_host();  // nothing to copy back, and no write to the mapping
  EXPECT_EQ(std::memcmp(mapped.layers[0].words(), loaded.words(), loaded.params().bytes()), 0);
  EXPECT_EQ(mapped.layers[0].counters().insertions, loaded.counters().insertions);
}

}  // namespace
}  // namespace gdedup
