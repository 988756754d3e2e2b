// The growing filter: its answers and bytes against a key-at-a-time oracle
// for any batch size, thread count and resume point (also through a
// checkpoint file); against exact dedup; its measured FPR after growing far
// past its first layer; its memory cap.
// The GPU backend's layers: gpu_layered_filter_test.cpp.
#include "gdedup/layered_filter.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <cstring>
#include <string>
#include <unordered_set>
#include <vector>

#include <gtest/gtest.h>

#include "gdedup/checkpoint.h"
#include "gdedup/error.h"
#include "test_util.h"

namespace gdedup {
namespace {

using test::Rng;

// A stream where each key is new with probability 7/10, else a repeat of
// an earlier one: the newest layer fills steadily and repeats reach every
// layer.
std::vector<uint64_t> stream_with_repeats(uint64_t count, uint64_t seed) {
  Rng rng(seed);
  std::vector<uint64_t> keys;
  keys.reserve(count);
  for (uint64_t i = 0; i < count; ++i) {
    keys.push_back(keys.empty() || rng.below(10) < 7 ? rng.next() : keys[rng.below(keys.size())]);
  }
  return keys;
}

GrowthRule small_rule(double fpr) {
  GrowthRule rule;
  rule.first_capacity = 1024;
  rule.target_fpr = fpr;
  return rule;
}

BackendMaker cpu_maker(unsigned threads) {
  return [threads](Filter& layer) {
    CpuOptions options;
    options.threads = threads;
    options.min_keys_per_thread = 1;  // small spans run on every thread too
    return make_cpu_backend(layer, options);
  };
}

struct Outcome {
  std::vector<uint8_t> answers;
  std::vector<std::vector<uint32_t>> layers;  // each layer's words
  uint64_t fresh = 0;
};

std::vector<std::vector<uint32_t>> words_of(LayeredFilter& filter) {
  filter.sync_to_host();
  std::vector<std::vector<uint32_t>> out;
  for (size_t i = 0; i < filter.layer_count(); ++i) {
    const Filter& layer = filter.layer(i);
    out.emplace_back(layer.words(), layer.words() + layer.params().words());
  }
  return out;
}

Outcome run_in_batches(LayeredFilter& filter, const std::vector<uint64_t>& keys, uint64_t batch,
                   uint64_t from = 0, uint64_t to = UINT64_MAX) {
  Outcome run;
  to = std::min<uint64_t>(to, keys.size());
  run.answers.assign(keys.size(), 2);
  for (uint64_t at = from; at < to; at += batch) {
    const uint64_t n = std::min(batch, to - at);
    run.fresh += filter.test_and_set(keys.data() + at, n, run.answers.data() + at);
  }
  run.layers = words_of(filter);
  return run;
}

// The rule applied the obvious way: one key at a time, growth checked before
// every key whose index is a multiple of check_every.
Outcome key_at_a_time(const GrowthRule& rule, const std::vector<uint64_t>& keys) {
  std::vector<std::unique_ptr<Filter>> layers;
  std::vector<std::unique_ptr<Backend>> backends;
  auto add = [&](uint32_t index) {
    layers.push_back(std::make_unique<Filter>(Filter::from_plan(plan_layer(rule, index))));
    backends.push_back(make_cpu_backend(*layers.back()));
  };
  add(0);
  Outcome run;
  for (uint64_t i = 0; i < keys.size(); ++i) {
    const FilterCounters& newest = layers.back()->counters();
    if (i % rule.check_every == 0 && newest.insertions + rule.check_every > newest.planned_capacity) {
      add(static_cast<uint32_t>(layers.size()));
    }
    uint8_t found = 0;
    for (size_t j = 0; j + 1 < layers.size() && !found; ++j) backends[j]->contains(&keys[i], 1, &found);
    if (!found) run.fresh += backends.back()->test_and_set(&keys[i], 1, &found);
    run.answers.push_back(found);
  }
  for (const auto& layer : layers) {
    run.layers.emplace_back(layer->words(), layer->words() + layer->params().words());
  }
  return run;
}

// The layers as a checkpoint would save them.
std::vector<Filter> copies_of(LayeredFilter& filter) {
  filter.sync_to_host();
  std::vector<Filter> saved;
  for (size_t i = 0; i < filter.layer_count(); ++i) {
    const Filter& layer = filter.layer(i);
    Filter copy(layer.params());
    std::memcpy(copy.words(), layer.words(), layer.params().bytes());
    copy.counters() = layer.counters();
    saved.push_back(std::move(copy));
  }
  return saved;
}

// The keys before `cut` in batches of `before` on 2 threads, the layers
// copied into a new filter, and the rest in batches of `after` on 1 thread.
Outcome run_with_resume(const GrowthRule& rule, const std::vector<uint64_t>& keys, uint64_t cut,
                        uint64_t before, uint64_t after) {
  LayeredFilter first(rule, kDefaultSeed, cpu_maker(2));
  const Outcome head = run_in_batches(first, keys, before, 0, cut);
  LayeredFilter resumed(rule, copies_of(first), first.keys_offered(), cpu_maker(1));
  Outcome whole = run_in_batches(resumed, keys, after, cut);
  std::copy(head.answers.begin(), head.answers.begin() + cut, whole.answers.begin());
  whole.fresh += head.fresh;
  return whole;
}

// The same with the layers saved by save_checkpoint to a file and resumed
// by load_checkpoint and resume_growing_filter.
Outcome run_through_checkpoint(const GrowthRule& rule, const std::vector<uint64_t>& keys,
                               uint64_t cut, uint64_t before, uint64_t after) {
  const std::string path = ::testing::TempDir() + "gdedup_layered_" +
                           std::to_string(::getpid()) + ".ckpt";
  LayeredFilter first(rule, kDefaultSeed, cpu_maker(2));
  const Outcome head = run_in_batches(first, keys, before, 0, cut);
  save_checkpoint(first, ResumeState{}, path);
  Checkpoint ck = load_checkpoint(path);
  std::remove(path.c_str());
  const std::unique_ptr<LayeredFilter> resumed = resume_growing_filter(ck, cpu_maker(1));
  Outcome whole = run_in_batches(*resumed, keys, after, cut);
  std::copy(head.answers.begin(), head.answers.begin() + cut, whole.answers.begin());
  whole.fresh += head.fresh;
  return whole;
}

void expect_same(const Outcome& got, const Outcome& want) {
  EXPECT_EQ(got.fresh, want.fresh);
  EXPECT_TRUE(got.answers == want.answers);
  ASSERT_EQ(got.layers.size(), want.layers.size());
  for (size_t i = 0; i < want.layers.size(); ++i) {
    EXPECT_TRUE(got.layers[i] == want.layers[i]) << "layer " << i + 1;
  }
}

TEST(LayeredFilter, MatchesTheKeyAtATimeOracleForAnyBatchAndThreads) {
  const GrowthRule rule = small_rule(1e-2);
  const std::vector<uint64_t> keys = stream_with_repeats(150000, 11);
  const Outcome want = key_at_a_time(rule, keys);
  ASSERT_GE(want.layers.size(), 6u);  // it did grow
  for (uint64_t batch : {uint64_t{1}, uint64_t{7}, uint64_t{4096}, uint64_t{1000000}}) {
    for (unsigned threads : {1u, 2u}) {
      SCOPED_TRACE("batch " + std::to_string(batch) + ", threads " + std::to_string(threads));
      LayeredFilter filter(rule, kDefaultSeed, cpu_maker(threads));
      expect_same(run_in_batches(filter, keys, batch), want);
      EXPECT_EQ(filter.keys_offered(), keys.size());
    }
  }
}

TEST(LayeredFilter, ResumedFromCopiedLayersGivesTheSameBytes) {
  const GrowthRule rule = small_rule(1e-2);
  const std::vector<uint64_t> keys = stream_with_repeats(60000, 12);
  LayeredFilter whole(rule, kDefaultSeed, cpu_maker(1));
  const Outcome want = run_in_batches(whole, keys, 1000);
  for (uint64_t cut : {uint64_t{1}, uint64_t{4095}, uint64_t{8192}, uint64_t{33333}}) {
    SCOPED_TRACE("cut at " + std::to_string(cut));
    expect_same(run_with_resume(rule, keys, cut, 777, 5000), want);
  }
}

// A query is present when any layer holds it, for batches where no layer
// holds a key, where some layers hold some, and where every key is held.
TEST(LayeredFilter, ContainsMatchesAnyLayerKeyAtATime) {
  const GrowthRule rule = small_rule(1e-2);
  LayeredFilter filter(rule, kDefaultSeed, cpu_maker(2));
  const std::vector<uint64_t> keys = stream_with_repeats(60000, 17);
  run_in_batches(filter, keys, 5000);
  ASSERT_GE(filter.layer_count(), 5u);
  const std::vector<uint64_t> absent = test::random_keys(30000, 18);
  std::vector<uint64_t> mixed;
  for (uint64_t i = 0; i < absent.size(); ++i) mixed.push_back(i % 2 ? absent[i] : keys[i * 2]);
  const std::vector<uint64_t> none_held(absent.begin(), absent.begin() + 20);
  for (const std::vector<uint64_t>* queries :
       std::vector<const std::vector<uint64_t>*>{&none_held, &mixed, &keys}) {
    std::vector<uint8_t> want(queries->size(), 0);
    for (uint64_t i = 0; i < queries->size(); ++i) {
      for (size_t j = 0; j < filter.layer_count() && !want[i]; ++j) {
        filter.backend(j).contains(&(*queries)[i], 1, &want[i]);
      }
    }
    for (uint64_t batch : {uint64_t{1}, uint64_t{7}, uint64_t{1000000}}) {
      SCOPED_TRACE(std::to_string(queries->size()) + " queries in batches of " +
                   std::to_string(batch));
      std::vector<uint8_t> got(queries->size(), 2);
      for (uint64_t at = 0; at < queries->size(); at += batch) {
        const uint64_t n = std::min<uint64_t>(batch, queries->size() - at);
        filter.contains(queries->data() + at, n, got.data() + at);
      }
      EXPECT_TRUE(got == want);
    }
  }
}

TEST(LayeredFilter, AgreesWithExactDedupUpToFalsePositives) {
  const GrowthRule rule = small_rule(1e-3);
  const std::vector<uint64_t> keys = stream_with_repeats(200000, 13);
  LayeredFilter filter(rule, kDefaultSeed, cpu_maker(2));
  const Outcome run = run_in_batches(filter, keys, 10000);
  std::unordered_set<uint64_t> seen;
  uint64_t new_keys = 0, taken_for_present = 0;
  for (uint64_t i = 0; i < keys.size(); ++i) {
    const bool repeat = !seen.insert(keys[i]).second;
    if (repeat) {
      ASSERT_EQ(run.answers[i], 1) << "a repeat reported new at " << i;
    } else {
      ++new_keys;
      taken_for_present += run.answers[i];
    }
  }
  EXPECT_EQ(run.fresh, new_keys - taken_for_present);
  // Below the target on average; 3 standard deviations of slack.
  const double allowed = new_keys * 1e-3;
  EXPECT_LE(taken_for_present, allowed + 3 * std::sqrt(allowed)) << taken_for_present;
  EXPECT_EQ(filter.insertions(), run.fresh);
}

// 1e7 distinct keys through a filter whose first layer is planned for 1e4.
class TenMillionKeys : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    rule_.first_capacity = 10000;
    rule_.target_fpr = 1e-3;
    keys_ = test::random_keys(10000000, 14);
  }
  static void TearDownTestSuite() { keys_ = {}; }
  // The first `count` keys: the tests that pass over them many times take
  // fewer (under AddressSanitizer, fewer still).
  static std::vector<uint64_t> first_keys(uint64_t count) {
    return std::vector<uint64_t>(keys_.begin(), keys_.begin() + static_cast<long>(count));
  }
  static GrowthRule rule_;
  static std::vector<uint64_t> keys_;
};
GrowthRule TenMillionKeys::rule_;
std::vector<uint64_t> TenMillionKeys::keys_;

TEST_F(TenMillionKeys, GrowingFarPastTheFirstLayerKeepsTheTargetRate) {
  LayeredFilter filter(rule_, kDefaultSeed, cpu_maker(2));
  run_in_batches(filter, keys_, 1000000);
  // Layers close a check interval before they are full, so there may be
  // one more than the schedule's.
  const uint32_t scheduled = growth_at(rule_, {keys_.size()})[0].layers;
  EXPECT_GE(filter.layer_count(), scheduled);
  EXPECT_LE(filter.layer_count(), scheduled + 1);
  EXPECT_LE(filter.expected_fpr(), 1e-3);
  const std::vector<uint64_t> absent = test::random_keys(1000000, 15);
  std::vector<uint8_t> answers(absent.size());
  filter.contains(absent.data(), absent.size(), answers.data());
  uint64_t false_positives = 0;
  for (uint8_t a : answers) false_positives += a;
  const double measured = static_cast<double>(false_positives) / absent.size();
  EXPECT_LE(measured, 1.1 * 1e-3) << measured;
  // And it is the compound rate the layers promise (4 standard deviations).
  EXPECT_NEAR(measured, filter.expected_fpr(), 0.15 * filter.expected_fpr()) << measured;
}

// Six passes over the keys: under AddressSanitizer (50 s for ten million
// there) over the first 2 million.
TEST_F(TenMillionKeys, SameBytesForBatchesThreadsAndAResume) {
  const uint64_t count = test::kAddressSanitizer ? 2000000 : keys_.size();
  const std::vector<uint64_t> keys = first_keys(count);
  LayeredFilter first(rule_, kDefaultSeed, cpu_maker(1));
  const Outcome want = run_in_batches(first, keys, 1000000);
  const struct {
    uint64_t batch;
    unsigned threads;
  } runs[] = {{4096, 1}, {4096, 2}, {1000000, 2}};
  for (const auto& r : runs) {
    SCOPED_TRACE("batch " + std::to_string(r.batch) + ", threads " + std::to_string(r.threads));
    LayeredFilter filter(rule_, kDefaultSeed, cpu_maker(r.threads));
    expect_same(run_in_batches(filter, keys, r.batch), want);
  }
  // Stopped between two checks, its layers copied, or saved to a
  // checkpoint file and loaded again.
  expect_same(run_with_resume(rule_, keys, count / 2 + 123, 4096, 1000000), want);
  expect_same(run_through_checkpoint(rule_, keys, count / 2 + 123, 4096, 1000000), want);
}

// Batches of 1 and 7 keys cost a call per key or seven over every layer:
// 25 s and 4 s for the whole stream here, on one thread (on two, each call
// would wake the second thread: 40 us a call), and ten times that under
// AddressSanitizer. So they take the first 2 million keys (the first
// million there), which fill eight layers (seven), against those keys in
// one batch.
TEST_F(TenMillionKeys, SameBytesForBatchesOfOneAndSevenKeys) {
  const uint64_t count = test::kAddressSanitizer ? 1000000 : 2000000;
  const std::vector<uint64_t> keys = first_keys(count);
  LayeredFilter first(rule_, kDefaultSeed, cpu_maker(2));
  const Outcome want = run_in_batches(first, keys, 1000000);
  EXPECT_GE(first.layer_count(), test::kAddressSanitizer ? 7u : 8u);
  for (uint64_t batch : {uint64_t{1}, uint64_t{7}}) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    LayeredFilter filter(rule_, kDefaultSeed, cpu_maker(1));
    expect_same(run_in_batches(filter, keys, batch), want);
  }
  // Two threads as a job gets them: small batches stay on one.
  LayeredFilter two(rule_, kDefaultSeed, [](Filter& layer) {
    return make_cpu_backend(layer, CpuOptions{2});
  });
  expect_same(run_in_batches(two, keys, 7), want);
}

TEST(LayeredFilter, AMemoryCapStopsGrowthAndSaysSo) {
  const GrowthRule rule = small_rule(1e-2);
  LayeredFilter filter(rule, kDefaultSeed, cpu_maker(1));
  const uint64_t cap = growth_at(rule, {4000})[0].bytes;  // three layers fit
  filter.set_max_bytes(cap);
  const std::vector<uint64_t> keys = test::random_keys(20000, 16);
  std::vector<uint8_t> answers(keys.size());
  filter.test_and_set(keys.data(), keys.size(), answers.data());
  EXPECT_TRUE(filter.growth_refused());
  EXPECT_EQ(filter.layer_count(), 3u);
  EXPECT_LE(filter.bytes(), cap);
  const FilterCounters& newest = filter.layer(2).counters();
  EXPECT_GT(newest.insertions, newest.planned_capacity);  // filled past its plan
}

TEST(LayeredFilter, SavedLayersMustExistAndShareASeed) {
  const GrowthRule rule = small_rule(1e-2);
  EXPECT_THROW(LayeredFilter(rule, std::vector<Filter>{}, 0, cpu_maker(1)), UsageError);
  std::vector<Filter> layers;
  layers.push_back(Filter::from_plan(plan_layer(rule, 0), 1));
  layers.push_back(Filter::from_plan(plan_layer(rule, 1), 2));
  try {
    LayeredFilter(rule, std::move(layers), 0, cpu_maker(1));
    FAIL() << "accepted layers of two seeds";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("layer 2 of the filter has hash seed 2"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace gdedup
