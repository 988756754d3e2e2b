// A backend made of two shards, written against the public Backend interface
// and the owner split (core/owner_partition.h), as a sharded backend would
// be: each shard is a CPU backend with a filter of its own that receives only
// the keys of its half of the blocks. Its answers, bits and insertion counts
// must be those of one CPU backend on the same keys: the Backend base counts
// each key once in the filter it serves, whatever its parts count in theirs.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "core/owner_partition.h"
#include "gdedup/backend.h"
#include "gdedup/backend_registry.h"
#include "gdedup/error.h"
#include "gdedup/filter.h"
#include "test_util.h"

namespace gdedup {
namespace {

class TwoShardBackend final : public Backend {
 public:
  explicit TwoShardBackend(Filter& whole)
      : Backend(whole), whole_(whole), owners_(whole.params().num_blocks, 2) {
    for (int s = 0; s < 2; ++s) {
      shard_filters_.push_back(std::make_unique<Filter>(whole.params()));
      shards_.push_back(make_cpu_backend(*shard_filters_.back(), {1, CpuKernel::kScalar}));
    }
  }

  std::string name() const override { return "two shards"; }

  void contains(const uint64_t* fingerprints, uint64_t count, uint8_t* present) override {
    split(fingerprints, count);
    for (unsigned o = 0; o < 2; ++o) {
      detail::OwnerBucket& b = row_[o];
      b.answers.resize(b.fingerprints.size());
      shards_[o]->contains(b.fingerprints.data(), b.fingerprints.size(), b.answers.data());
    }
    detail::scatter_answers(row_, owner_of_key_.data(), 0, count, present);
  }

  void sync_to_host() override {
    uint32_t* words = whole_.words();
    for (uint64_t i = 0; i < whole_.params().words(); ++i) words[i] = 0;
    for (const auto& shard : shard_filters_) {
      for (uint64_t i = 0; i < whole_.params().words(); ++i) words[i] |= shard->words()[i];
    }
  }

  const Filter& shard_filter(unsigned o) const { return *shard_filters_[o]; }

 protected:
  void add_keys(const uint64_t* fingerprints, uint64_t count) override {
    split(fingerprints, count);
    for (unsigned o = 0; o < 2; ++o) {
      shards_[o]->add(row_[o].fingerprints.data(), row_[o].fingerprints.size());
    }
  }

  uint64_t test_and_set_keys(const uint64_t* fingerprints, uint64_t count,
                             uint8_t* was_present) override {
    split(fingerprints, count);
    uint64_t fresh = 0;
    for (unsigned o = 0; o < 2; ++o) {
      detail::OwnerBucket& b = row_[o];
      b.answers.resize(b.fingerprints.size());
      fresh += shards_[o]->test_and_set(b.fingerprints.data(), b.fingerprints.size(),
                                        b.answers.data());
    }
    detail::scatter_answers(row_, owner_of_key_.data(), 0, count, was_present);
    return fresh;
  }

 private:
  void split(const uint64_t* fingerprints, uint64_t count) {
    owner_of_key_.resize(count);
    detail::partition_by_owner(owners_, fingerprints, 0, count, row_, owner_of_key_.data());
  }

  Filter& whole_;
  detail::BlockOwners owners_;
  std::vector<std::unique_ptr<Filter>> shard_filters_;
  std::vector<std::unique_ptr<Backend>> shards_;
  std::vector<detail::OwnerBucket> row_;
  std::vector<detail::OwnerIndex> owner_of_key_;
};

std::vector<uint32_t> words_of(const Filter& f) {
  return std::vector<uint32_t>(f.words(), f.words() + f.params().words());
}

TEST(CompositeBackend, TwoShardsAnswerAndCountAsOneBackend) {
  test::Rng rng(61);
  for (int round = 0; round < 6; ++round) {
    const FilterParams params{1 + rng.below(4000), Layout{round % 2 ? 512u : 256u, 16}, rng.next()};
    const auto keys = test::keys_with_duplicates(20000, 1 + rng.below(15000), rng.next());
    Filter one_filter(params), composite_filter(params);
    auto one = make_cpu_backend(one_filter, {2, CpuKernel::kAuto, 1});
    TwoShardBackend composite(composite_filter);
    std::vector<uint8_t> expected(keys.size(), 7), got(keys.size(), 9);
    uint64_t fresh = 0;
    for (uint64_t at = 0; at < keys.size(); at += 3000) {  // batches, as the pipeline sends
      const uint64_t n = std::min<uint64_t>(3000, keys.size() - at);
      const uint64_t new_keys = one->test_and_set(keys.data() + at, n, expected.data() + at);
      ASSERT_EQ(composite.test_and_set(keys.data() + at, n, got.data() + at), new_keys)
          << "round " << round << " batch at " << at;
      fresh += new_keys;
    }
    ASSERT_EQ(got, expected) << "round " << round;
    const auto more = test::random_keys(5000, rng.next());
    composite.add(more.data(), more.size());
    one->add(more.data(), more.size());
    composite.contains(keys.data(), keys.size(), got.data());
    one->contains(keys.data(), keys.size(), expected.data());
    ASSERT_EQ(got, expected) << "round " << round;

    composite.sync_to_host();
    one->sync_to_host();
    EXPECT_EQ(words_of(composite_filter), words_of(one_filter)) << "round " << round;
    // Keys found new plus keys added: counted once, not per shard again.
    EXPECT_EQ(one_filter.counters().insertions, fresh + more.size()) << "round " << round;
    EXPECT_EQ(composite_filter.counters().insertions, fresh + more.size()) << "round " << round;
    // Each shard counted its own keys in its own filter, once.
    EXPECT_EQ(composite.shard_filter(0).counters().insertions +
                  composite.shard_filter(1).counters().insertions,
              fresh + more.size())
        << "round " << round;
  }
}

TEST(CompositeBackend, ARegisteredBackendIsMadeByName) {
  BackendEntry entry;
  entry.name = "two-shards";
  entry.summary = "two CPU shards (a test)";
  entry.available = [](const BackendOptions&, std::string*) { return true; };
  entry.check_fits = [](uint64_t, const BackendOptions&) {};
  entry.make = [](Filter& filter, const BackendOptions&) {
    return MadeBackend{std::make_unique<TwoShardBackend>(filter), "two shards"};
  };
  register_backend(entry);
  EXPECT_EQ(backend_names(), "gpu, cpu, two-shards");
  EXPECT_THROW(register_backend(entry), Error);

  const BackendEntry* found = find_backend("two-shards");
  ASSERT_NE(found, nullptr);
  Filter filter(FilterParams{500, Layout{256, 8}, 1});
  MadeBackend made = found->make(filter, {});
  const auto keys = test::keys_with_duplicates(4000, 1000, 5);
  std::vector<uint8_t> answers(keys.size());
  const uint64_t fresh = made.backend->test_and_set(keys.data(), keys.size(), answers.data());
  EXPECT_EQ(filter.counters().insertions, fresh);
  EXPECT_LE(fresh, 1000u);
}

}  // namespace
}  // namespace gdedup
