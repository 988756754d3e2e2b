// gdedup info on a growing filter and on a checkpoint: the top-level
// members describe the whole filter, each compared with the library's own
// value (LayeredFilter, compound_fpr) rather than with a copy of the
// report's arithmetic; layers are listed one by one; a checkpoint of many
// inputs is summarized unless --all-inputs.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "cli_util.h"
#include "test_util.h"
#include "gdedup/backend.h"
#include "gdedup/checkpoint.h"
#include "gdedup/filter_file.h"
#include "gdedup/growth.h"
#include "gdedup/layered_filter.h"

namespace {

using cli_test::contains;
using cli_test::Result;
using cli_test::run;

// The value of a top-level member of `json` (its members are indented by
// two spaces, those of nested objects by more). Fails the test when absent.
std::string top_member(const std::string& json, const std::string& key) {
  const std::string start = "\n  \"" + key + "\": ";
  const size_t at = json.find(start);
  EXPECT_NE(at, std::string::npos) << key << " in " << json;
  if (at == std::string::npos) return "";
  const size_t from = at + start.size();
  return json.substr(from, json.find_first_of(",\n", from) - from);
}
double top_double(const std::string& json, const std::string& key) {
  return std::stod(top_member(json, key));
}
uint64_t top_count(const std::string& json, const std::string& key) {
  return std::stoull(top_member(json, key));
}

size_t occurrences(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

// 1234567 as "1,234,567", the way the text output groups digits.
std::string with_commas(uint64_t value) {
  std::string digits = std::to_string(value);
  for (int at = static_cast<int>(digits.size()) - 3; at > 0; at -= 3) digits.insert(at, ",");
  return digits;
}

// The growing filter a file holds, as the library sees it.
std::unique_ptr<gdedup::LayeredFilter> growing_filter_of(const std::string& path) {
  gdedup::FilterFile file = gdedup::load_filter_file(path);
  return std::make_unique<gdedup::LayeredFilter>(*file.rules.growth, std::move(file.layers),
                                                 file.rules.keys_offered,
                                                 gdedup::test::cpu_layers());
}

// The members of the whole filter against the library's values.
void expect_whole_filter(const std::string& json, const gdedup::LayeredFilter& filter) {
  const size_t layers = filter.layer_count();
  EXPECT_EQ(top_count(json, "info_version"), 2u);
  EXPECT_EQ(top_count(json, "layer_count"), layers);
  EXPECT_EQ(top_count(json, "bytes"), filter.bytes());
  EXPECT_EQ(top_count(json, "insertions"), filter.insertions());
  EXPECT_EQ(top_double(json, "expected_fpr"), filter.expected_fpr());
  std::vector<double> current;
  std::vector<double> planned;
  uint64_t blocks = 0;
  uint64_t set_bits = 0;
  uint64_t capacity = 0;
  double keys = 0;
  for (size_t i = 0; i < layers; ++i) {
    const gdedup::Filter& layer = filter.layer(i);
    current.push_back(layer.current_fpr());
    planned.push_back(layer.counters().planned_fpr);
    blocks += layer.params().num_blocks;
    set_bits += layer.count_set_bits();
    capacity += layer.counters().planned_capacity;
    keys += layer.estimated_keys();
  }
  EXPECT_EQ(top_double(json, "current_fpr"), gdedup::compound_fpr(current.data(), layers));
  EXPECT_EQ(top_double(json, "planned_fpr"), gdedup::compound_fpr(planned.data(), layers));
  EXPECT_EQ(top_count(json, "blocks"), blocks);
  EXPECT_EQ(top_count(json, "set_bits"), set_bits);
  EXPECT_EQ(top_count(json, "total_bits"), filter.bytes() * 8);
  EXPECT_EQ(top_count(json, "planned_capacity"), capacity);
  EXPECT_DOUBLE_EQ(top_double(json, "estimated_keys"), keys);
  // Every layer in the list, oldest first, with its own figures.
  EXPECT_EQ(occurrences(json, "\"planned_capacity\""), layers + 1) << json;
  EXPECT_TRUE(contains(json, "\"planned_capacity\": " +
                                 std::to_string(filter.layer(layers - 1).counters().planned_capacity)))
      << json;
}

TEST(CliInfo, GrowingFilterIsDescribedWhole) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  std::string keys;
  for (int i = 0; i < 9000; ++i) keys += "https://example.com/" + std::to_string(i) + "\n";
  cli_test::write_file(dir / "in.txt", keys);
  ASSERT_EQ(run({"build", "-q", dir / "in.txt", "-f", dir / "g.bf", "--capacity", "1000"}).status,
            0);
  const auto filter = growing_filter_of(dir / "g.bf");
  ASSERT_GE(filter->layer_count(), 3u);

  Result r = run({"info", "--json", dir / "g.bf"});
  ASSERT_EQ(r.status, 0) << r.err;
  expect_whole_filter(r.out, *filter);
  EXPECT_TRUE(contains(r.out, "\"layers\": [\n")) << r.out;

  r = run({"info", dir / "g.bf"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "\nlayers        " + std::to_string(filter->layer_count()) + "\n"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "(" + with_commas(filter->bytes()) + " bytes) in all"))
      << r.out;
  EXPECT_TRUE(contains(r.out, with_commas(filter->insertions()) + " (keys added"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "layer " + std::to_string(filter->layer_count()) + ":\n  layout"))
      << r.out;
}

TEST(CliInfo, FixedFilterKeepsItsMembers) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  cli_test::write_file(dir / "in.txt", "a\nb\nc\n");
  ASSERT_EQ(run({"build", "-q", dir / "in.txt", "-f", dir / "f.bf", "--no-grow"}).status, 0);
  const gdedup::Filter filter = gdedup::load_filter(dir / "f.bf");
  const Result r = run({"info", "--json", dir / "f.bf"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(top_count(r.out, "layer_count"), 1u);
  EXPECT_EQ(top_count(r.out, "block_bits"), filter.params().layout.block_bits);
  EXPECT_EQ(top_count(r.out, "blocks"), filter.params().num_blocks);
  EXPECT_EQ(top_count(r.out, "bytes"), filter.params().bytes());
  EXPECT_EQ(top_double(r.out, "current_fpr"), filter.current_fpr());
  EXPECT_EQ(top_double(r.out, "planned_fpr"), filter.counters().planned_fpr);
  EXPECT_EQ(top_count(r.out, "insertions"), 3u);
}

// A checkpoint of a growing filter with 100 inputs, stopped in input 51.
void save_checkpoint_of_many_inputs(const std::string& path) {
  gdedup::GrowthRule rule;
  rule.first_capacity = 1024;
  rule.check_every = 1024;
  gdedup::LayeredFilter filter(rule, gdedup::kDefaultSeed, gdedup::test::cpu_layers());
  std::vector<uint64_t> fps;
  for (uint64_t i = 0; i < 5000; ++i) fps.push_back(i * 0x9e3779b97f4a7c15ull);
  std::vector<uint8_t> present(fps.size());
  filter.test_and_set(fps.data(), fps.size(), present.data());
  filter.sync_to_host();
  gdedup::ResumeState state;
  for (int i = 0; i < 100; ++i) {
    state.inputs.push_back({"shard-" + std::to_string(i) + ".txt", true, 1000, 1, 2});
  }
  state.position = gdedup::StreamPoint{5000, 50500, 50, 500};
  state.records = 5000;
  state.kept = 5000;
  state.input_bytes = 50500;
  gdedup::save_checkpoint(filter, state, path);
}

TEST(CliInfo, CheckpointOfManyInputsIsSummarized) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  save_checkpoint_of_many_inputs(dir / "ck");
  Result r = run({"info", dir / "ck"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "inputs        100: the first and last 3 and the current one"))
      << r.out;
  for (const char* shown : {"1. shard-0.txt", "3. shard-2.txt", "51. shard-50.txt (1,000 bytes) "
                            "(current)", "98. shard-97.txt", "100. shard-99.txt",
                            "... 47 inputs", "... 46 inputs", "(input 51 of 100)"}) {
    EXPECT_TRUE(contains(r.out, shown)) << shown << " in " << r.out;
  }
  EXPECT_FALSE(contains(r.out, "shard-3.txt")) << r.out;
  // The count row and nine below it: the rows do not grow with the inputs.
  const std::string listing = r.out.substr(0, r.out.find("\nkey "));
  EXPECT_EQ(occurrences(listing, "\n              "), 9u) << r.out;

  r = run({"info", "--all-inputs", dir / "ck"});
  ASSERT_EQ(r.status, 0) << r.err;
  for (int i = 0; i < 100; ++i) {
    EXPECT_TRUE(contains(r.out, "shard-" + std::to_string(i) + ".txt (")) << i;
  }

  r = run({"info", "--json", dir / "ck"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(top_count(r.out, "input_count"), 100u);
  EXPECT_EQ(occurrences(r.out, "\"shard-"), 100u);
  gdedup::Checkpoint loaded = gdedup::load_checkpoint(dir / "ck");
  const auto filter = gdedup::resume_growing_filter(loaded, gdedup::test::cpu_layers());
  ASSERT_GE(filter->layer_count(), 2u);
  expect_whole_filter(r.out, *filter);
}

}  // namespace
