// The growing filter with its layers on the GPU backend (the CUDA stand-in
// where there is no GPU) against the same filter on the CPU backend: answers
// and every layer's bytes identical, for several batch sizes; and the device
// memory its layers take.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gdedup/error.h"
#include "gdedup/gpu.h"
#include "gdedup/layered_filter.h"
#include "require_gpu.h"
#include "test_util.h"

namespace gdedup {
namespace {

struct Result {
  std::vector<uint8_t> answers;
  std::vector<std::vector<uint32_t>> layers;
};

Result run(LayeredFilter& filter, const std::vector<uint64_t>& keys, uint64_t batch) {
  Result r;
  r.answers.resize(keys.size());
  for (uint64_t at = 0; at < keys.size(); at += batch) {
    const uint64_t n = std::min<uint64_t>(batch, keys.size() - at);
    filter.test_and_set(keys.data() + at, n, r.answers.data() + at);
  }
  filter.sync_to_host();
  for (size_t i = 0; i < filter.layer_count(); ++i) {
    const Filter& layer = filter.layer(i);
    r.layers.emplace_back(layer.words(), layer.words() + layer.params().words());
  }
  return r;
}

TEST(GpuLayeredFilter, LayersOnTheDeviceGiveTheCpuBytes) {
  GDEDUP_REQUIRE_GPU();
  GrowthRule rule;
  rule.first_capacity = 1024;
  rule.target_fpr = 1e-2;
  // Repeats of earlier keys mixed in, so older layers answer too.
  const std::vector<uint64_t> fresh = test::random_keys(30000, 31);
  std::vector<uint64_t> keys;
  test::Rng rng(32);
  for (uint64_t k : fresh) {
    keys.push_back(k);
    if (rng.below(3) == 0) keys.push_back(keys[rng.below(keys.size())]);
  }
  LayeredFilter cpu(rule, kDefaultSeed, [](Filter& layer) { return make_cpu_backend(layer); });
  const Result want = run(cpu, keys, 4096);
  ASSERT_GE(want.layers.size(), 5u);
  for (uint64_t batch : {uint64_t{777}, uint64_t{1000000}}) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    LayeredFilter gpu(rule, kDefaultSeed,
                      [](Filter& layer) { return make_gpu_backend(layer, GpuOptions{0, 5000}); });
    const Result got = run(gpu, keys, batch);
    EXPECT_TRUE(got.answers == want.answers);
    ASSERT_EQ(got.layers.size(), want.layers.size());
    for (size_t i = 0; i < want.layers.size(); ++i) {
      EXPECT_TRUE(got.layers[i] == want.layers[i]) << "layer " << i + 1;
    }
  }
}

// Each layer's backend takes the batch buffers the first one made (at 2^24
// keys they are about 1.1 GB a set: gpu.h's gpu_device_bytes): the layers after the first add their
// filters' bytes to the device, and no more buffers.
TEST(GpuLayeredFilter, LayersShareOneSetOfBatchBuffers) {
  GDEDUP_REQUIRE_GPU();
  GrowthRule rule;
  rule.first_capacity = 1024;
  rule.target_fpr = 1e-2;
  const uint64_t free_before = gpu_device_info().free_bytes;
  LayeredFilter gpu(rule, kDefaultSeed, [](Filter& layer) {
    return make_gpu_backend(layer, GpuOptions{0, uint64_t{1} << 18});
  });
  const uint64_t first_layer = free_before - gpu_device_info().free_bytes;
  const uint64_t buffers = first_layer - gpu.layer(0).params().bytes();
  const std::vector<uint64_t> keys = test::random_keys(30000, 33);
  std::vector<uint8_t> answers(keys.size());
  gpu.test_and_set(keys.data(), keys.size(), answers.data());
  ASSERT_GE(gpu.layer_count(), 5u);
  uint64_t later_layers = 0;
  for (size_t i = 1; i < gpu.layer_count(); ++i) later_layers += gpu.layer(i).params().bytes();
  // A real device rounds allocations up (to 2 MiB at most): far less than
  // the one set of buffers a layer would add.
  const uint64_t used = free_before - gpu_device_info().free_bytes;
  EXPECT_GE(used, first_layer + later_layers);
  EXPECT_LT(used, first_layer + later_layers + buffers / 2)
      << "buffers " << buffers << ", layers after the first " << later_layers;
}

// The growing filter seen as one backend (as the pipeline sees it) hands
// out its layers' backend's memory: pinned on the GPU, plain on the CPU.
TEST(GpuLayeredFilter, ItsBackendGivesTheLayersHostMemory) {
  GDEDUP_REQUIRE_GPU();
  GrowthRule rule;
  rule.first_capacity = 1024;
  LayeredFilter gpu(rule, kDefaultSeed,
                    [](Filter& layer) { return make_gpu_backend(layer, GpuOptions{0, 5000}); });
  EXPECT_TRUE(gpu.as_backend()->host_buffer(4096).pinned());
  LayeredFilter cpu(rule, kDefaultSeed, [](Filter& layer) { return make_cpu_backend(layer); });
  EXPECT_FALSE(cpu.as_backend()->host_buffer(4096).pinned());
}

}  // namespace
}  // namespace gdedup
