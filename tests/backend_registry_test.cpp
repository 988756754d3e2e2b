// The built-in backend registry: its names and order (auto's preference),
// lookup, what auto takes, and names that cannot be registered.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gdedup/backend_registry.h"
#include "gdedup/error.h"
#include "gdedup/gpu.h"

namespace gdedup {
namespace {

TEST(BackendRegistry, ListsTheGpuBeforeTheCpu) {
  EXPECT_EQ(backend_names(), "gpu, cpu");
  ASSERT_EQ(backend_registry().size(), 2u);
  for (const BackendEntry& e : backend_registry()) {
    EXPECT_EQ(find_backend(e.name), &e);
    EXPECT_FALSE(e.summary.empty()) << e.name;
    // The library's words name no flag: a front end adds its own.
    EXPECT_EQ(e.summary.find("--"), std::string::npos) << e.summary;
    EXPECT_EQ(e.uses_device, e.name == "gpu") << e.name;
  }
  EXPECT_EQ(find_backend("tpu"), nullptr);
  EXPECT_EQ(find_backend("auto"), nullptr);
}

TEST(BackendRegistry, AutoTakesTheCpuWithTheGpusReasonWhenNoGpuIsUsable) {
  std::string why;
  if (gpu_available(&why)) GTEST_SKIP() << "a GPU is usable here";
  std::vector<SkippedBackend> skipped;
  const BackendEntry& chosen = first_usable_backend(1 << 20, {}, &skipped);
  EXPECT_EQ(chosen.name, "cpu");
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_EQ(skipped[0].name, "gpu");
  EXPECT_EQ(skipped[0].why, why);
  std::string unavailable;
  EXPECT_FALSE(find_backend("gpu")->available({}, &unavailable));
  EXPECT_EQ(unavailable, why);
}

// An exact set is held where the registry says, as a filter runs: a name
// stands, and auto takes the first available entry that holds sets.
TEST(BackendRegistry, ChoosesWhereASetIsHeld) {
  for (const BackendEntry& e : backend_registry()) EXPECT_TRUE(e.holds_sets) << e.name;
  EXPECT_EQ(choose_set_backend("cpu", {}), "cpu");
  EXPECT_EQ(choose_set_backend("gpu", {}), "gpu");
  EXPECT_EQ(choose_set_backend("auto", {}), gpu_available(nullptr) ? "gpu" : "cpu");
}

TEST(BackendRegistry, MakesACpuBackendThatCountsInsertions) {
  Filter filter(FilterParams{100, Layout{256, 8}, 3});
  BackendOptions options;
  options.threads = 2;
  MadeBackend made = find_backend("cpu")->make(filter, options);
  EXPECT_NE(made.description.find("2 threads"), std::string::npos) << made.description;
  const std::vector<uint64_t> keys{1, 2, 3, 2};
  made.backend->add(keys.data(), keys.size());
  EXPECT_EQ(filter.counters().insertions, 4u);
}

TEST(BackendRegistry, TakenNamesAreRefused) {
  for (const char* name : {"auto", "cpu", "gpu"}) {
    BackendEntry entry;
    entry.name = name;
    EXPECT_THROW(register_backend(entry), Error) << name;
  }
  EXPECT_EQ(backend_names(), "gpu, cpu");
}

}  // namespace
}  // namespace gdedup
