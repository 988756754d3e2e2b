// LiveFilter and LiveSet (gdedup/live_filter.h, gdedup/live_set.h) as a
// program that keeps them uses them, with no front end: a new filter opened
// with a job's checks (its refusals naming options through OptionNames),
// fingerprints answered against an exact oracle, merges, and saves through
// a SaveGuard (the overfull refusal, the round trip); a set's refusal past
// its cap with the keys it answered before.
#include "gdedup/live_filter.h"

#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "file_util.h"
#include "gdedup/error.h"
#include "gdedup/fingerprint.h"
#include "gdedup/live_set.h"

namespace gdedup {
namespace {

// Names every option "<name>", so that a message shows it names them
// through OptionNames; quotes a given value after it.
class AngleNames : public JobEvents {
 public:
  std::string name(JobOption option) const override {
    return "<" + JobEvents::name(option) + ">";
  }
  std::string given(JobOption option) const override { return name(option) + "=7"; }
  void warn(const std::string& message) override { warnings.push_back(message); }
  std::vector<std::string> warnings;
};

BackendChoice cpu() {
  BackendChoice choice;
  choice.which = "cpu";
  choice.options.threads = 2;
  return choice;
}

std::vector<uint64_t> fingerprints(size_t count, size_t distinct, uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> pool(distinct), out;
  for (uint64_t& f : pool) f = rng();
  for (size_t i = 0; i < count; ++i) out.push_back(pool[rng() % distinct]);
  return out;
}

// The message of the UsageError that fn throws ("" when none).
template <class Fn>
std::string usage_refusal(Fn fn) {
  try {
    fn();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(LiveFilter, NewOneIsCheckedAsAJobsNewFilter) {
  AngleNames names;
  JobSpec spec;
  spec.sizing.capacity = 1000;
  spec.max_memory = 1 << 20;
  spec.no_grow = true;
  const std::string fixed_capped =
      usage_refusal([&] { new_live_filter(spec, cpu(), names); });
  EXPECT_NE(fixed_capped.find("<max_memory>=7 caps a filter that grows, but <no_grow>"),
            std::string::npos)
      << fixed_capped;

  spec.no_grow = false;
  spec.max_memory = 0;
  spec.given.insert(JobOption::kMaxMemory);
  const std::string no_bytes = usage_refusal([&] { new_live_filter(spec, cpu(), names); });
  EXPECT_NE(no_bytes.find("<max_memory>=7: a cap of 0 bytes holds no filter"), std::string::npos)
      << no_bytes;
  EXPECT_NE(usage_refusal([&] { live_set_cap(0, names); }), "");
  EXPECT_EQ(live_set_cap(std::nullopt, names), 0u);
  EXPECT_EQ(live_set_cap(4096, names), 4096u);

  spec.sizing.capacity = 10'000'000;
  spec.max_memory = 1000;
  const std::string past_cap = usage_refusal([&] { new_live_filter(spec, cpu(), names); });
  EXPECT_NE(past_cap.find("<max_memory>=7 is less than the filter's"), std::string::npos)
      << past_cap;
  EXPECT_NE(past_cap.find("a smaller <capacity>"), std::string::npos) << past_cap;

  spec.max_memory = 0;
  spec.given.clear();
  spec.sizing = JobSizing{};
  spec.no_grow = true;
  const std::string unsized = usage_refusal([&] { new_live_filter(spec, cpu(), names); });
  EXPECT_NE(unsized.find("a fixed filter needs <capacity>"), std::string::npos) << unsized;

  spec.no_grow = false;
  spec.max_memory = uint64_t{1} << 30;
  const LiveFilter grows = new_live_filter(spec, cpu(), names);
  EXPECT_TRUE(grows.growing());
  EXPECT_EQ(grows.max_bytes(), uint64_t{1} << 30);
  EXPECT_EQ(grows.backend_name().rfind("cpu", 0), 0u) << grows.backend_name();
}

TEST(LiveFilter, AnswersAsAnExactSetDoesUpToItsRate) {
  AngleNames names;
  for (const bool grow : {false, true}) {
    SCOPED_TRACE(grow ? "growing" : "fixed");
    JobSpec spec;
    spec.sizing.capacity = grow ? 500 : 20'000;  // the growing one adds layers
    spec.sizing.fpr = 1e-7;
    spec.no_grow = !grow;
    LiveFilter filter = new_live_filter(spec, cpu(), names);
    const std::vector<uint64_t> keys = fingerprints(40'000, 10'000, 3);
    std::vector<uint8_t> was(keys.size());
    uint64_t fresh = 0;
    for (size_t at = 0; at < keys.size(); at += 4096) {
      const uint64_t n = std::min<uint64_t>(4096, keys.size() - at);
      fresh += filter.test_and_set(keys.data() + at, n, was.data() + at);
    }
    std::set<uint64_t> seen;
    uint64_t false_positives = 0;
    for (size_t i = 0; i < keys.size(); ++i) {
      const bool repeat = !seen.insert(keys[i]).second;
      if (repeat) EXPECT_EQ(was[i], 1) << "key " << i << " was added before";
      if (!repeat && was[i] != 0) ++false_positives;
    }
    EXPECT_LE(false_positives, 1u);
    EXPECT_EQ(fresh + false_positives, seen.size());
    EXPECT_EQ(filter.growing(), grow);
    if (grow) EXPECT_GT(filter.layer_count(), 1u);
    std::vector<uint8_t> present(keys.size());
    filter.contains(keys.data(), keys.size(), present.data());
    for (size_t i = 0; i < keys.size(); ++i) ASSERT_EQ(present[i], 1) << "key " << i;
    EXPECT_EQ(filter.insertions(), fresh);
    EXPECT_FALSE(filter.over_capacity());
  }
}

class LiveFilterFiles : public test::TempDirTest {
 protected:
  LiveFilterFiles() : TempDirTest("gdedup_live_filter") {}
};

TEST_F(LiveFilterFiles, MergedOnesHoldBothAndOtherKindsAreRefusedUnchanged) {
  AngleNames names;
  JobSpec spec;
  spec.sizing.capacity = 5000;
  spec.no_grow = true;
  LiveFilter a = new_live_filter(spec, cpu(), names), b = new_live_filter(spec, cpu(), names);
  const std::vector<uint64_t> ka = fingerprints(2000, 2000, 5), kb = fingerprints(2000, 2000, 6);
  std::vector<uint8_t> answers(2000);
  a.test_and_set(ka.data(), ka.size(), answers.data());
  b.test_and_set(kb.data(), kb.size(), answers.data());
  a.merge(b, names);
  for (const std::vector<uint64_t>* keys : {&ka, &kb}) {
    a.contains(keys->data(), keys->size(), answers.data());
    for (const uint8_t present : answers) ASSERT_EQ(present, 1);
  }
  const uint64_t merged = a.insertions();
  a.merge(a, names);  // its own union
  EXPECT_EQ(a.insertions(), merged);

  JobSpec growing;
  LiveFilter c = new_live_filter(growing, cpu(), names);
  const std::string refused = usage_refusal([&] { a.merge(c, names); });
  EXPECT_FALSE(refused.empty());
  EXPECT_EQ(a.insertions(), merged);
  EXPECT_FALSE(a.growing());
}

TEST_F(LiveFilterFiles, AGuardedSaveRefusesOneFarPastItsPlanInTheProgramsWords) {
  AngleNames names;
  JobSpec spec;
  spec.sizing.capacity = 100;
  spec.no_grow = true;
  LiveFilter filter = new_live_filter(spec, cpu(), names);
  const std::vector<uint64_t> keys = fingerprints(20'000, 20'000, 9);
  std::vector<uint8_t> answers(keys.size());
  filter.test_and_set(keys.data(), keys.size(), answers.data());
  ASSERT_TRUE(filter.over_capacity());

  const std::string file = path("f.gdf");
  SaveGuard guard(SavedKind::kFilter);
  try {
    filter.save(file, std::nullopt, guard, names, "SAVE_ANYWAY");
    FAIL() << "an overfull filter was saved";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::filter_overfull);
    const std::string what = e.what();
    EXPECT_NE(what.find("Make a filter with <capacity> "), std::string::npos) << what;
    EXPECT_NE(what.find("anyway with SAVE_ANYWAY"), std::string::npos) << what;
  }
  EXPECT_FALSE(std::filesystem::exists(file));

  filter.save(file, std::nullopt, guard, names, nullptr);
  LiveFilter loaded(load_filter_file(file), cpu(), file);
  EXPECT_FALSE(loaded.growing());
  EXPECT_EQ(loaded.insertions(), filter.insertions());
  loaded.contains(keys.data(), keys.size(), answers.data());
  for (const uint8_t present : answers) ASSERT_EQ(present, 1);
}

TEST_F(LiveFilterFiles, AGrowingOneComesBackFromItsFileAsItWas) {
  AngleNames names;
  JobSpec spec;
  spec.sizing.capacity = 300;
  spec.max_memory = uint64_t{1} << 30;
  LiveFilter filter = new_live_filter(spec, cpu(), names);
  const std::vector<uint64_t> keys = fingerprints(5000, 4000, 11);
  std::vector<uint8_t> answers(keys.size());
  filter.test_and_set(keys.data(), keys.size(), answers.data());
  ASSERT_GT(filter.layer_count(), 1u);
  const std::string file = path("g.gdf");
  SaveGuard guard(SavedKind::kFilter);
  filter.save(file, std::nullopt, guard, names, "SAVE_ANYWAY");
  LiveFilter loaded(load_filter_file(file), cpu(), file);
  ASSERT_TRUE(loaded.growing());
  EXPECT_EQ(*loaded.rule(), *filter.rule());
  EXPECT_EQ(loaded.keys_offered(), filter.keys_offered());
  EXPECT_EQ(loaded.layer_count(), filter.layer_count());
  const FilterSummary was = filter.summary(), now = loaded.summary();
  EXPECT_EQ(now.set_bits, was.set_bits);
  EXPECT_EQ(now.insertions, was.insertions);
}

TEST(LiveSet, ARefusalPastItsCapSaysWhichKeyAndKeepsThoseBefore) {
  AngleNames names;
  KeySetOptions options;
  options.max_bytes = 1 << 20;
  LiveSet set(0, options, KeyRules{}, names);
  std::vector<Key84> keys;
  for (uint64_t i = 0; i < 400'000; ++i) keys.push_back(key84(&i, sizeof i, kDefaultSeed));
  std::vector<uint8_t> answers(keys.size());
  try {
    set.run(keys.data(), keys.size(), true, answers.data(), 10);
    FAIL() << "the set grew past its cap";
  } catch (const SetFullAt& e) {
    EXPECT_EQ(e.kind(), ErrorKind::set_full);
    const uint64_t held = set.keys().size();
    EXPECT_EQ(e.answered(), 10 + held);
    const std::string what = e.what();
    EXPECT_NE(what.find("key " + std::to_string(10 + held) + " (counting from 0)"),
              std::string::npos) << what;
    EXPECT_NE(what.find("past <max_memory>=7"), std::string::npos) << what;
    std::vector<uint8_t> present(held);
    set.keys().contains(keys.data(), held, present.data());
    for (const uint8_t p : present) ASSERT_EQ(p, 1);
  }
  LiveSet other(0, KeySetOptions{}, KeyRules{}, names);
  KeyRules json;
  json.keys = KeyOptions::parse("json:url");
  LiveSet different(0, KeySetOptions{}, json, names);
  EXPECT_FALSE(usage_refusal([&] { other.merge(different); }).empty());
  const std::string too_big = usage_refusal([&] {
    KeySetOptions tight;
    tight.max_bytes = 1 << 20;
    LiveSet(1'000'000, tight, KeyRules{}, names);
  });
  EXPECT_NE(too_big.find("<capacity>=7"), std::string::npos) << too_big;
}

}  // namespace
}  // namespace gdedup
