// gdedup plan, info and merge, of Bloom filters and of the exact sets of
// --exact, the command line's usage errors, --help and --version, run
// through the real binary ($GDEDUP_BIN).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <iterator>
#include <string>
#include <vector>

#include "cli_util.h"
#include "failing_replacement.h"
#include "gdedup/backend.h"
#include "gdedup/filter.h"
#include "gdedup/filter_file.h"
#include "gdedup/fingerprint.h"
#include "gdedup/frontend/number_text.h"
#include "gdedup/growth.h"
#include "gdedup/job.h"
#include "gdedup/key_set.h"
#include "gdedup/merge_job.h"
#include "gdedup/planner.h"
#include "gdedup/set_file.h"

namespace {

using cli_test::Result;
using cli_test::run;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Saves a filter holding keys [from, to) of "key-N", built through the
// library so these tests need no pipeline.
void save_with_keys(const std::string& path, const gdedup::Plan& plan, uint64_t from, uint64_t to,
                    uint64_t seed = gdedup::kDefaultSeed) {
  gdedup::Filter filter = gdedup::Filter::from_plan(plan, seed);
  std::vector<uint64_t> fps;
  for (uint64_t i = from; i < to; ++i) {
    const std::string key = "key-" + std::to_string(i);
    fps.push_back(gdedup::fingerprint(key.data(), key.size(), seed));
  }
  auto backend = gdedup::make_cpu_backend(filter);
  backend->add(fps.data(), fps.size());
  backend->sync_to_host();
  gdedup::save_filter(filter, path);
}

TEST(CliPlan, TextShowsLayoutMemoryAndExpectedRate) {
  REQUIRE_GDEDUP_BIN();
  const gdedup::Plan plan = gdedup::plan_for_capacity(1000000000, 1e-4);
  const Result r = run({"plan", "--capacity", "1e9", "--fpr", "1e-4"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(contains(r.out, "1,000,000,000 distinct keys")) << r.out;
  EXPECT_TRUE(contains(r.out, std::to_string(plan.layout.block_bits) + "-bit blocks, k = " +
                                  std::to_string(plan.layout.k)))
      << r.out;
  EXPECT_TRUE(contains(r.out, "expected FPR")) << r.out;
  EXPECT_TRUE(contains(r.out, "GiB")) << r.out;
}

TEST(CliPlan, JsonMatchesThePlanner) {
  REQUIRE_GDEDUP_BIN();
  const gdedup::Plan plan = gdedup::plan_for_capacity(2000000, 1e-3, 256);
  const Result r = run({"plan", "--capacity", "2M", "--fpr", "0.001", "--block-bits", "256", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "\"capacity\": 2000000,")) << r.out;
  EXPECT_TRUE(contains(r.out, "\"target_fpr\": 0.001,")) << r.out;
  EXPECT_TRUE(contains(r.out, "\"block_bits\": 256,")) << r.out;
  EXPECT_TRUE(contains(r.out, "\"k\": " + std::to_string(plan.layout.k) + ",")) << r.out;
  EXPECT_TRUE(contains(r.out, "\"blocks\": " + std::to_string(plan.num_blocks) + ",")) << r.out;
  EXPECT_TRUE(contains(r.out, "\"bytes\": " + std::to_string(plan.bytes()) + ",")) << r.out;
  EXPECT_EQ(r.out.front(), '{');
  EXPECT_EQ(r.out.substr(r.out.size() - 2), "}\n");
}

TEST(CliPlan, MemoryBudgetUsesBinaryUnits) {
  REQUIRE_GDEDUP_BIN();
  const gdedup::Plan plan = gdedup::plan_for_memory(uint64_t{3} << 29, 100000000);
  const Result r = run({"plan", "--memory", "1.5GiB", "--capacity", "100M", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "\"bytes\": " + std::to_string(plan.bytes()) + ",")) << r.out;
  EXPECT_FALSE(contains(r.out, "target_fpr")) << r.out;
}

TEST(CliPlan, ShowsTheGrowthOfAFilterStartingAtTheCapacity) {
  REQUIRE_GDEDUP_BIN();
  gdedup::GrowthRule rule;
  rule.first_capacity = 10000 > rule.check_every ? 10000 : rule.check_every;
  rule.target_fpr = 1e-3;
  rule.tightening = gdedup::kSizedTightening;  // a first layer planned for the keys expected
  const std::vector<gdedup::GrowthPoint> points = gdedup::growth_at(rule, {1000000, 10000000});
  const Result r = run({"plan", "--capacity", "1e4", "--fpr", "1e-3", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "\"capacity\": 10000,")) << r.out;
  EXPECT_TRUE(contains(r.out, "\"first_capacity\": 10000,")) << r.out;
  for (const gdedup::GrowthPoint& p : points) {
    EXPECT_TRUE(contains(r.out, "\"" + std::to_string(p.keys) + "\": {\n        \"layers\": " +
                                    std::to_string(p.layers) + ",\n        \"bytes\": " +
                                    std::to_string(p.bytes) + ","))
        << r.out;
  }
  EXPECT_TRUE(contains(r.out, "\"1000000000000\": {")) << r.out;
}

// 1234567 as "1,234,567", the way the text output groups digits.
std::string with_commas(uint64_t value) {
  std::string digits = std::to_string(value);
  for (int at = static_cast<int>(digits.size()) - 3; at > 0; at -= 3) digits.insert(at, ",");
  return digits;
}

// Saves the exact set of keys [from, to) of "key-N" with `rules`.
void save_set_with_keys(const std::string& path, uint64_t from, uint64_t to,
                        const gdedup::KeyRules& rules = {}) {
  std::vector<gdedup::Key84> keys;
  for (uint64_t i = from; i < to; ++i) {
    const std::string key = "key-" + std::to_string(i);
    keys.push_back(gdedup::key84(key.data(), key.size(), rules.seed));
  }
  gdedup::KeySet set;
  set.insert(keys.data(), keys.size());
  gdedup::save_set_file(set, rules, path);
}

// The number after `"name": ` in `json`.
double json_number(const std::string& json, const std::string& name) {
  const size_t at = json.find("\"" + name + "\": ");
  EXPECT_NE(at, std::string::npos) << name << " in " << json;
  return at == std::string::npos ? -1 : std::stod(json.substr(at + name.size() + 4));
}

TEST(CliPlan, ExactShowsTheSetsMemoryAndCollisionChance) {
  REQUIRE_GDEDUP_BIN();
  Result r = run({"plan", "--exact", "--capacity", "1e8"});
  ASSERT_EQ(r.status, 0) << r.err;
  const uint64_t bytes = gdedup::KeySet::bytes_for(100000000);
  EXPECT_TRUE(contains(r.out, "100,000,000 distinct keys")) << r.out;
  EXPECT_TRUE(contains(r.out, with_commas(bytes) + " bytes")) << r.out;
  EXPECT_TRUE(contains(r.out, "bytes a key")) << r.out;
  EXPECT_TRUE(contains(r.out, "collision")) << r.out;
  EXPECT_FALSE(contains(r.out, "FPR")) << r.out;

  r = run({"plan", "--exact", "--capacity", "1e8", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(json_number(r.out, "capacity"), 1e8);
  EXPECT_EQ(json_number(r.out, "bytes"), static_cast<double>(bytes));
  EXPECT_DOUBLE_EQ(json_number(r.out, "bytes_per_key"), bytes / 1e8);
  EXPECT_DOUBLE_EQ(json_number(r.out, "collision_chance"),
                   gdedup::KeySet::collision_chance(100000000));
}

TEST(CliPlan, ExactRefusesWhatSizesABloomFilter) {
  REQUIRE_GDEDUP_BIN();
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"--fpr", "1e-3"}, "--fpr 1e-3 has no effect with --exact"},
      {{"--memory", "1GiB"}, "--memory 1GiB has no effect with --exact"},
      {{"--block-bits", "256"}, "--block-bits 256 has no effect with --exact"},
      {{"--allow-high-fpr"}, "--allow-high-fpr has no effect with --exact"},
      {{}, "needs --capacity"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"plan", "--exact"};
    if (c.says != "needs --capacity") args.insert(args.end(), {"--capacity", "1e6"});
    args.insert(args.end(), c.args.begin(), c.args.end());
    const Result r = run(args);
    EXPECT_EQ(r.status, 2) << c.says;
    EXPECT_TRUE(cli_test::one_error_line(r.err)) << r.err;
    EXPECT_TRUE(contains(r.err, c.says)) << r.err;
    EXPECT_EQ(r.out, "");
  }
}

TEST(CliPlan, WithoutCapacityShowsOnlyTheGrowth) {
  REQUIRE_GDEDUP_BIN();
  const Result r = run({"plan"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "growing: layers of 2x the keys")) << r.out;
  EXPECT_TRUE(contains(r.out, "1,000,000,000,000")) << r.out;
  EXPECT_FALSE(contains(r.out, "expected FPR")) << r.out;
}

TEST(CliPlan, BadValuesAreUsageErrors) {
  REQUIRE_GDEDUP_BIN();
  const std::vector<std::vector<std::string>> cases = {
      {"plan", "--memory", "1GiB"},                      // a budget without capacity
      {"plan", "--capacity", "0"},                       // zero keys
      {"plan", "--capacity", "12Q"},                     // unknown suffix
      {"plan", "--capacity", "1.5"},                     // not whole
      {"plan", "--capacity", "1e9", "--fpr", "2"},       // rate out of range
      {"plan", "--capacity", "1e9", "--fpr", "abc"},
      {"plan", "--capacity", "1e9", "--memory", "4GB"},  // ambiguous unit
      {"plan", "--capacity", "1e9", "--fpr", "1e-3", "--memory", "1G"},
      {"plan", "--capacity", "1e9", "--block-bits", "128"},
      {"plan", "--capacity", "1e9", "--bogus"},
      {"plan", "--capacity"},                            // missing value
      {"frobnicate"},
      {},
  };
  for (const auto& args : cases) {
    const Result r = run(args);
    std::string joined;
    for (const auto& a : args) joined += a + " ";
    EXPECT_EQ(r.status, 2) << joined << r.err;
    EXPECT_TRUE(cli_test::one_error_line(r.err)) << joined;
    EXPECT_EQ(r.out, "") << joined;
  }
  const Result r = run({"plan", "--capacity", "12Q"});
  EXPECT_TRUE(contains(r.err, "--capacity 12Q")) << r.err;
}

TEST(CliInfo, ShowsParametersFillAndCounters) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  const std::string path = dir / "f.bf";
  const gdedup::Plan plan = gdedup::plan_for_capacity(10000, 1e-4);
  save_with_keys(path, plan, 0, 5000);
  const gdedup::Filter filter = gdedup::load_filter(path);

  Result r = run({"info", path});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, path)) << r.out;
  EXPECT_TRUE(contains(r.out, "0x6764656475700001")) << r.out;
  EXPECT_TRUE(contains(r.out, "5,000 (keys added")) << r.out;  // insertions
  EXPECT_TRUE(contains(r.out, "10,000 keys at FPR")) << r.out;  // planned
  EXPECT_TRUE(contains(r.out, std::to_string(filter.count_set_bits()).substr(0, 1))) << r.out;

  r = run({"info", "--json", path});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "\"version\": " + std::to_string(gdedup::kFilterFileVersion) + ","))
      << r.out;
  EXPECT_TRUE(contains(r.out, "\"blocks\": " + std::to_string(plan.num_blocks) + ",")) << r.out;
  EXPECT_TRUE(contains(r.out, "\"set_bits\": " + std::to_string(filter.count_set_bits()) + ","))
      << r.out;
  EXPECT_TRUE(contains(r.out, "\"insertions\": 5000,")) << r.out;
  EXPECT_TRUE(contains(r.out, "\"planned_capacity\": 10000,")) << r.out;
  EXPECT_TRUE(contains(r.out, "\"seed\": \"0x6764656475700001\"")) << r.out;
  // The estimate from the fill is close to the 5000 keys put in.
  const size_t at = r.out.find("\"estimated_keys\": ");
  ASSERT_NE(at, std::string::npos);
  const double estimate = std::stod(r.out.substr(at + 18));
  EXPECT_NEAR(estimate, 5000, 250);
}

TEST(CliInfo, DamagedOrMissingFilesAreRuntimeErrors) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  const std::string path = dir / "f.bf";
  save_with_keys(path, gdedup::plan_for_capacity(1000, 1e-3), 0, 10);
  std::string bytes = cli_test::read_file(path);
  bytes[bytes.size() - 1] ^= 1;  // payload checksum no longer matches
  cli_test::write_file(path, bytes);
  Result r = run({"info", path});
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(cli_test::one_error_line(r.err)) << r.err;
  EXPECT_TRUE(contains(r.err, path)) << r.err;

  r = run({"info", dir / "missing.bf"});
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(cli_test::one_error_line(r.err)) << r.err;
  EXPECT_TRUE(contains(r.err, "missing.bf")) << r.err;
}

TEST(CliInfo, SetFileShowsKeysBytesLoadAndCollisionChance) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  const std::string path = dir / "s.gds";
  save_set_with_keys(path, 0, 5000);
  const gdedup::SetFile file = gdedup::load_set_file(path);
  const uint64_t size = cli_test::read_file(path).size();
  Result r = run({"info", path});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "exact set")) << r.out;
  EXPECT_TRUE(contains(r.out, "5,000\n")) << r.out;
  EXPECT_TRUE(contains(r.out, with_commas(size) + " bytes")) << r.out;
  EXPECT_TRUE(contains(r.out, with_commas(file.set.bytes()) + " bytes")) << r.out;
  EXPECT_TRUE(contains(r.out, "0x6764656475700001")) << r.out;  // the key rules

  r = run({"info", "--json", path});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "\"kind\": \"set\"")) << r.out;
  EXPECT_EQ(json_number(r.out, "keys"), 5000);
  EXPECT_EQ(json_number(r.out, "file_bytes"), static_cast<double>(size));
  EXPECT_DOUBLE_EQ(json_number(r.out, "file_bytes_per_key"), size / 5000.0);
  EXPECT_EQ(json_number(r.out, "bytes"), static_cast<double>(file.set.bytes()));
  EXPECT_DOUBLE_EQ(json_number(r.out, "load"), file.set.load());
  EXPECT_DOUBLE_EQ(json_number(r.out, "collision_chance"),
                   gdedup::KeySet::collision_chance(5000));

  // A damaged set is an error naming it, as a damaged filter is.
  std::string bytes = cli_test::read_file(path);
  bytes[bytes.size() - 1] ^= 1;
  cli_test::write_file(path, bytes);
  r = run({"info", path});
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(cli_test::one_error_line(r.err)) << r.err;
  EXPECT_TRUE(contains(r.err, path + " is damaged")) << r.err;
}

// info reads a set streamed, without loading it: it prints what it printed
// when it loaded the set (the texts below), and refuses a damaged set with
// the loader's message.
TEST(CliInfo, SetFileOutputIsTheLoadedSetsAndDamageTheLoadersMessage) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  const std::string rules =
      "input text, key whole, delimiter tab, normalize none, separator newline, seed "
      "0x6764656475700001";
  struct Case {
    uint64_t keys;
    std::string rows;  // after the file row
    std::string json;  // after the file member
  };
  const std::vector<Case> cases = {
      {5000,
       "kind          exact set (--exact): every distinct key seen, as 84 bits of its hash\n"
       "version       1\n"
       "key rules     " + rules + "\n"
       "keys          5,000\n"
       "file size     44.8 KiB (45,874 bytes, 9.17 bytes a key)\n"
       "memory        256 KiB (262,144 bytes, 52.43 bytes a key) when loaded\n"
       "load          20.35% of the table's slots\n"
       "collision     6.46e-19: the chance that two of 5,000 keys share their 84 bits, so "
       "that a unique key is taken for a seen one\n",
       "  \"kind\": \"set\",\n  \"info_version\": 2,\n  \"version\": 1,\n"
       "  \"key_rules\": \"" + rules + "\",\n"
       "  \"keys\": 5000,\n  \"file_bytes\": 45874,\n"
       "  \"file_bytes_per_key\": 9.1748,\n  \"bytes\": 262144,\n"
       "  \"bytes_per_key\": 52.4288,\n  \"load\": 0.20345052083333334,\n"
       "  \"collision_chance\": 6.461056065863415e-19\n}\n"},
      {100000,
       "kind          exact set (--exact): every distinct key seen, as 84 bits of its hash\n"
       "version       1\n"
       "key rules     " + rules + "\n"
       "keys          100,000\n"
       "file size     841 KiB (861,043 bytes, 8.61 bytes a key)\n"
       "memory        2.00 MiB (2,097,152 bytes, 20.97 bytes a key) when loaded\n"
       "load          50.86% of the table's slots\n"
       "collision     2.58e-16: the chance that two of 100,000 keys share their 84 bits, so "
       "that a unique key is taken for a seen one\n",
       "  \"kind\": \"set\",\n  \"info_version\": 2,\n  \"version\": 1,\n"
       "  \"key_rules\": \"" + rules + "\",\n"
       "  \"keys\": 100000,\n  \"file_bytes\": 861043,\n"
       "  \"file_bytes_per_key\": 8.61043,\n  \"bytes\": 2097152,\n"
       "  \"bytes_per_key\": 20.97152,\n  \"load\": 0.5086263020833334,\n"
       "  \"collision_chance\": 2.5849135648340687e-16\n}\n"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.keys);
    const std::string path = dir / "s.gds";
    save_set_with_keys(path, 0, c.keys);
    Result r = run({"info", path});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "file          " + path + "\n" + c.rows);
    r = run({"info", "--json", path});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "{\n  \"file\": \"" + path + "\",\n" + c.json);
  }
  // Damaged: a changed key byte, a cut, an appended byte.
  const std::string good = cli_test::read_file(dir / "s.gds");
  std::string changed = good;
  changed[good.size() - 100] ^= 4;
  for (const std::string& bytes : {changed, good.substr(0, good.size() / 2), good + "x"}) {
    const std::string path = dir / "bad.gds";
    cli_test::write_file(path, bytes);
    std::string message;
    try {
      gdedup::load_set_file(path);
    } catch (const gdedup::Error& e) {
      message = e.what();
    }
    ASSERT_FALSE(message.empty());
    const Result r = run({"info", path, dir / "s.gds"});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err, "gdedup: " + message + "\n");
    EXPECT_TRUE(contains(r.out, "100,000")) << r.out;  // the good file after it
  }
}

TEST(CliInfo, SetCheckpointShowsItsJobAndSet) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  const std::string path = dir / "s.ck";
  std::vector<gdedup::Key84> keys = {1, 2, 3};
  gdedup::KeySet set;
  set.insert(keys.data(), keys.size());
  gdedup::ResumeState state;
  state.output = "out.txt";
  state.records = 7;
  state.kept = 3;
  state.dropped = 4;
  state.inputs.push_back(gdedup::InputIdentity{"in.txt", true, 70, 1, 2});
  gdedup::save_set_checkpoint(set, gdedup::KeyRules{}, state, path);
  Result r = run({"info", path});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "--exact")) << r.out;
  EXPECT_TRUE(contains(r.out, "in.txt")) << r.out;
  EXPECT_TRUE(contains(r.out, "7 records done")) << r.out;
  EXPECT_TRUE(contains(r.out, "collision")) << r.out;
  r = run({"info", "--json", path});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "\"kind\": \"set_checkpoint\"")) << r.out;
  EXPECT_EQ(json_number(r.out, "keys"), 3);
  EXPECT_EQ(json_number(r.out, "dropped"), 4);
}

TEST(CliMerge, SetsMergeIntoTheirUnionByteForByte) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  save_set_with_keys(dir / "a.gds", 0, 7000);
  save_set_with_keys(dir / "b.gds", 5000, 20000);  // overlapping
  save_set_with_keys(dir / "c.gds", 19000, 21000);
  save_set_with_keys(dir / "whole.gds", 0, 21000);
  Result r = run({"merge", dir / "a.gds", dir / "b.gds", dir / "c.gds", "-o", dir / "u.gds"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "21,000 distinct keys")) << r.err;
  EXPECT_TRUE(cli_test::same_bytes(cli_test::read_file(dir / "u.gds"),
                                   cli_test::read_file(dir / "whole.gds")));
  // The output may be an input; a file of another kind is not replaced.
  r = run({"merge", "-q", dir / "a.gds", dir / "b.gds", dir / "c.gds", "-o", dir / "a.gds"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(cli_test::same_bytes(cli_test::read_file(dir / "a.gds"),
                                   cli_test::read_file(dir / "whole.gds")));
  cli_test::write_file(dir / "notes.txt", "keep me\n");
  r = run({"merge", dir / "b.gds", dir / "c.gds", "-o", dir / "notes.txt"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "not a readable gdedup set file")) << r.err;
  EXPECT_EQ(cli_test::read_file(dir / "notes.txt"), "keep me\n");
}

TEST(CliMerge, SetsAndFiltersOrOtherRulesAreNotMerged) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  save_set_with_keys(dir / "a.gds", 0, 100);
  save_with_keys(dir / "f.bf", gdedup::plan_for_capacity(1000, 1e-3), 0, 100);
  gdedup::KeyRules nul;
  nul.record_separator = '\0';
  save_set_with_keys(dir / "z.gds", 0, 100, nul);
  gdedup::KeyRules seeded;
  seeded.seed = 42;
  save_set_with_keys(dir / "seed.gds", 0, 100, seeded);
  struct Case {
    std::vector<std::string> inputs;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{dir / "a.gds", dir / "f.bf"}, dir / "a.gds is an exact set (written with --exact) and " +
                                          dir / "f.bf a Bloom filter"},
      {{dir / "f.bf", dir / "a.gds"}, "a set and a Bloom filter cannot be merged"},
      {{dir / "a.gds", dir / "z.gds"}, "different rules"},
      {{dir / "a.gds", dir / "seed.gds", "--ignore-key-rules"}, "different rules"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"merge"};
    args.insert(args.end(), c.inputs.begin(), c.inputs.end());
    args.insert(args.end(), {"-o", dir / "out"});
    const Result r = run(args);
    EXPECT_EQ(r.status, 2) << c.says;
    EXPECT_TRUE(cli_test::one_error_line(r.err)) << r.err;
    EXPECT_TRUE(contains(r.err, c.says)) << r.err;
    EXPECT_FALSE(cli_test::exists(dir / "out"));
  }
  // Rules other than the seed give way to --ignore-key-rules: the first's are kept.
  const Result r =
      run({"merge", dir / "a.gds", dir / "z.gds", "--ignore-key-rules", "-o", dir / "out"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(gdedup::load_set_file(dir / "out").rules, gdedup::KeyRules{});
}

// A cap of no bytes holds nothing, and the job takes 0 for no cap at all:
// --max-memory 0 (or "0K") is refused before any work, by every command that
// takes it, never run as if it had been left out.
TEST(CliMaxMemory, ACapOfNoBytesIsRefusedByEveryCommand) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  cli_test::write_file(dir / "in.txt", "a\nb\na\n");
  save_set_with_keys(dir / "a.gds", 0, 10);
  const std::string in = dir / "in.txt", out = dir / "out.txt", set = dir / "a.gds";
  const std::vector<std::vector<std::string>> commands = {
      {"dedup", in, "-o", out},
      {"dedup", in, "-o", out, "--exact"},
      {"build", in, "-f", dir / "new.gdf"},
      {"build", in, "-f", dir / "new.gds", "--exact"},
      {"query", in, "-f", set, "--exact"},
      {"merge", set, set, "-o", dir / "merged.gds"},
  };
  for (const std::string cap : {"0", "0K"}) {
    for (std::vector<std::string> args : commands) {
      args.insert(args.end(), {"--max-memory", cap});
      std::string joined;
      for (const std::string& a : args) joined += a + " ";
      SCOPED_TRACE(joined);
      const Result r = run(args);
      EXPECT_EQ(r.status, 2) << r.err;
      EXPECT_TRUE(cli_test::one_error_line(r.err)) << r.err;
      EXPECT_TRUE(contains(r.err, "--max-memory " + cap + ": a cap of 0 bytes holds no filter "
                                  "or set; give the most bytes it may take, or "
                                  "leave --max-memory out for no cap"))
          << r.err;
      EXPECT_FALSE(cli_test::exists(out));
      EXPECT_FALSE(cli_test::exists(dir / "new.gdf"));
      EXPECT_FALSE(cli_test::exists(dir / "new.gds"));
      EXPECT_FALSE(cli_test::exists(dir / "merged.gds"));
    }
  }
}

// --max-memory caps the union of sets as it is made, and a merged filter's
// size, known from the headers: past it, exit 4 and nothing written (the
// output, new or an existing file, is as it was).
TEST(CliMerge, MaxMemoryCapsTheUnionAndWritesNothingPastIt) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  save_set_with_keys(dir / "a.gds", 0, 2000);
  save_set_with_keys(dir / "b.gds", 1000, 60000);
  save_set_with_keys(dir / "whole.gds", 0, 60000);
  // The first input as merge loads it, and the union it grows to.
  gdedup::KeySet first = gdedup::load_set_file(dir / "a.gds").set;
  const uint64_t first_bytes = first.bytes();
  gdedup::load_set_file(dir / "b.gds").set.for_each_sorted(
      [&](const gdedup::Key84* keys, size_t n) { first.insert(keys, n); });
  const uint64_t union_bytes = first.bytes();
  ASSERT_GT(union_bytes, first_bytes);
  cli_test::write_file(dir / "old.gds", cli_test::read_file(dir / "a.gds"));
  struct Case {
    uint64_t cap;
    std::string output;
    std::string says;
  };
  const std::vector<Case> cases = {
      {first_bytes - 1, dir / "new.gds", dir / "a.gds takes"},
      {first_bytes, dir / "new.gds", "with " + dir / "b.gds the union takes at least"},
      {union_bytes - 1, dir / "old.gds", "the union takes at least"},
      {union_bytes - 1, dir / "a.gds", "the union takes at least"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.cap);
    const bool existed = cli_test::exists(c.output);
    const std::string before = existed ? cli_test::read_file(c.output) : "";
    const Result r = run({"merge", dir / "a.gds", dir / "b.gds", "-o", c.output,
                          "--max-memory", std::to_string(c.cap)});
    EXPECT_EQ(r.status, 4) << r.err;
    EXPECT_TRUE(cli_test::one_error_line(r.err)) << r.err;
    EXPECT_TRUE(contains(r.err, "cannot merge into " + c.output + ": ")) << r.err;
    EXPECT_TRUE(contains(r.err, c.says)) << r.err;
    EXPECT_TRUE(contains(r.err, "more than --max-memory " + std::to_string(c.cap) +
                                    " allows; nothing was written"))
        << r.err;
    EXPECT_EQ(cli_test::exists(c.output), existed);
    if (existed) {
      EXPECT_EQ(cli_test::read_file(c.output), before);
    }
  }
  // A damaged input is told as damaged, even where its keys pass the cap.
  std::string damaged = cli_test::read_file(dir / "b.gds");
  damaged[damaged.size() - 10] ^= 1;
  cli_test::write_file(dir / "damaged.gds", damaged);
  Result r = run({"merge", dir / "a.gds", dir / "damaged.gds", "-o", dir / "new.gds",
                  "--max-memory", std::to_string(first_bytes)});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_TRUE(contains(r.err, dir / "damaged.gds is damaged")) << r.err;
  EXPECT_FALSE(cli_test::exists(dir / "new.gds"));
  r = run({"merge", "-q", dir / "a.gds", dir / "b.gds", "-o", dir / "old.gds",
           "--max-memory", std::to_string(union_bytes)});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(cli_test::same_bytes(cli_test::read_file(dir / "old.gds"),
                                   cli_test::read_file(dir / "whole.gds")));

  // Filters: the merged filter's size, from the headers.
  const gdedup::Plan plan = gdedup::plan_for_capacity(20000, 1e-4);
  save_with_keys(dir / "a.bf", plan, 0, 7000);
  save_with_keys(dir / "b.bf", plan, 7000, 20000);
  const uint64_t filter_bytes = gdedup::read_filter_info(dir / "a.bf").params[0].bytes();
  r = run({"merge", dir / "a.bf", dir / "b.bf", "-o", dir / "c.bf", "--max-memory",
           std::to_string(filter_bytes - 1)});
  EXPECT_EQ(r.status, 4) << r.err;
  EXPECT_TRUE(contains(r.err, "the merged filter takes")) << r.err;
  EXPECT_FALSE(cli_test::exists(dir / "c.bf"));
  r = run({"merge", dir / "a.bf", dir / "b.bf", "-o", dir / "c.bf", "--max-memory",
           std::to_string(filter_bytes)});
  EXPECT_EQ(r.status, 0) << r.err;
  r = run({"merge", dir / "a.bf", dir / "b.bf", "-o", dir / "d.bf", "--max-memory", "1x"});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "--max-memory 1x")) << r.err;
  EXPECT_FALSE(cli_test::exists(dir / "d.bf"));
}

TEST(CliMerge, HalvesMergeIntoTheWholeByteForByte) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  const gdedup::Plan plan = gdedup::plan_for_capacity(20000, 1e-4);
  save_with_keys(dir / "a.bf", plan, 0, 7000);
  save_with_keys(dir / "b.bf", plan, 7000, 20000);
  save_with_keys(dir / "whole.bf", plan, 0, 20000);
  const Result r = run({"merge", dir / "a.bf", dir / "b.bf", "-o", dir / "c.bf"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(cli_test::all_lines_prefixed(r.err)) << r.err;
  EXPECT_TRUE(cli_test::same_bytes(cli_test::read_file(dir / "c.bf"), cli_test::read_file(dir / "whole.bf")));
}

TEST(CliMerge, OutputMayBeAnInput) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  const gdedup::Plan plan = gdedup::plan_for_capacity(5000, 1e-4);
  save_with_keys(dir / "a.bf", plan, 0, 2000);
  save_with_keys(dir / "b.bf", plan, 2000, 3000);
  save_with_keys(dir / "c.bf", plan, 3000, 5000);
  save_with_keys(dir / "whole.bf", plan, 0, 5000);
  const Result r =
      run({"merge", "-q", dir / "a.bf", dir / "b.bf", dir / "c.bf", "-o", dir / "a.bf"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(cli_test::same_bytes(cli_test::read_file(dir / "a.bf"), cli_test::read_file(dir / "whole.bf")));
}

TEST(CliMerge, DifferentParametersAreRefusedNamingTheDifferenceAndFiles) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  save_with_keys(dir / "a.bf", gdedup::plan_for_capacity(5000, 1e-4, 512), 0, 10);
  save_with_keys(dir / "small.bf", gdedup::plan_for_capacity(500, 1e-4, 512), 0, 10);
  save_with_keys(dir / "b256.bf", gdedup::plan_for_capacity(5000, 1e-4, 256), 0, 10);
  save_with_keys(dir / "seed.bf", gdedup::plan_for_capacity(5000, 1e-4, 512), 0, 10, 42);
  struct Case {
    std::string other;
    std::string difference;
  };
  for (const Case& c : {Case{"small.bf", "block counts"}, Case{"b256.bf", "block sizes"},
                        Case{"seed.bf", "seeds"}}) {
    const Result r = run({"merge", dir / "a.bf", dir / c.other, "-o", dir / "out.bf"});
    EXPECT_EQ(r.status, 2) << c.other;
    EXPECT_TRUE(cli_test::one_error_line(r.err)) << r.err;
    EXPECT_TRUE(contains(r.err, c.difference)) << r.err;
    EXPECT_TRUE(contains(r.err, dir / "a.bf")) << r.err;
    EXPECT_TRUE(contains(r.err, dir / c.other)) << r.err;
    EXPECT_FALSE(cli_test::exists(dir / "out.bf"));
  }
}

TEST(CliMerge, NeedsTwoFiltersAndAnOutput) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  save_with_keys(dir / "a.bf", gdedup::plan_for_capacity(100, 1e-3), 0, 10);
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"merge", dir / "a.bf", "-o", dir / "o.bf"}, {"merge", dir / "a.bf", dir / "a.bf"}}) {
    const Result r = run(args);
    EXPECT_EQ(r.status, 2);
    EXPECT_TRUE(cli_test::one_error_line(r.err)) << r.err;
  }
  // An output with no name is refused before the merge, not at its rename
  // (by the command's check of every file option; the merge job's own is
  // MergeJob.RefusesOtherRulesMixedKindsAndOutputsOfAnotherKind's).
  const Result r = run({"merge", dir / "a.bf", dir / "a.bf", "-o", ""});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_TRUE(cli_test::one_error_line(r.err)) << r.err;
  EXPECT_TRUE(contains(r.err, "--output: the path is empty")) << r.err;
}

// The merge job itself (gdedup/merge_job.h), as a front end other than the
// command calls it: what it merges, refuses and says, in its caller's words.
class RecordingEvents : public gdedup::JobEvents {
 public:
  void info(const std::string& message) override { notes.push_back(message); }
  std::string given(gdedup::JobOption option) const override {
    return option == gdedup::JobOption::kMaxMemory ? "cap=9" : name(option);
  }
  std::vector<std::string> notes;
};

gdedup::MergeSpec merge_spec(const std::vector<std::string>& inputs, const std::string& output,
                             uint64_t max_memory = 0) {
  gdedup::MergeSpec spec;
  spec.inputs = inputs;
  spec.output = output;
  spec.max_memory = max_memory;
  return spec;
}

TEST(MergeJob, SetsMergeIntoTheirUnionAndFiltersIntoTheirOr) {
  cli_test::TempDir dir;
  save_set_with_keys(dir / "a.gds", 0, 7000);
  save_set_with_keys(dir / "b.gds", 5000, 21000);
  save_set_with_keys(dir / "whole.gds", 0, 21000);
  RecordingEvents events;
  gdedup::MergeSpec spec = merge_spec({dir / "a.gds", dir / "b.gds"}, dir / "a.gds");
  gdedup::MergeResult result = gdedup::run_merge_job(spec, events);
  EXPECT_EQ(result.status, gdedup::MergeStatus::kComplete);
  EXPECT_TRUE(result.saved && result.sets);
  ASSERT_TRUE(result.set.has_value());
  EXPECT_EQ(result.set->keys, 21000u);
  EXPECT_TRUE(cli_test::same_bytes(cli_test::read_file(dir / "a.gds"),
                                   cli_test::read_file(dir / "whole.gds")));
  EXPECT_EQ(gdedup::merge_summary_line(spec, result),
            "merged 2 sets into " + dir / "a.gds" + ": 21,000 distinct keys, collision chance " +
                gdedup::format_rate(gdedup::KeySet::collision_chance(21000)));

  const gdedup::Plan plan = gdedup::plan_for_capacity(20000, 1e-4);
  save_with_keys(dir / "a.bf", plan, 0, 7000);
  save_with_keys(dir / "b.bf", plan, 7000, 20000);
  save_with_keys(dir / "whole.bf", plan, 0, 20000);
  spec = merge_spec({dir / "a.bf", dir / "b.bf"}, dir / "c.bf");
  result = gdedup::run_merge_job(spec, events);
  EXPECT_EQ(result.status, gdedup::MergeStatus::kComplete);
  EXPECT_TRUE(result.saved && !result.sets && !result.set);
  EXPECT_EQ(result.inputs, 2u);
  EXPECT_EQ(result.filter.set_bits,
            gdedup::summarize(gdedup::load_filter(dir / "whole.bf")).set_bits);
  EXPECT_TRUE(cli_test::same_bytes(cli_test::read_file(dir / "c.bf"),
                                   cli_test::read_file(dir / "whole.bf")));
  EXPECT_TRUE(contains(gdedup::merge_summary_line(spec, result),
                       "merged 2 filters into " + dir / "c.bf" + ": ")) << result.message;
  // Filters saved without their key rules are noted, through the events.
  ASSERT_EQ(events.notes.size(), 2u);
  EXPECT_EQ(events.notes[0].rfind("note: " + dir / "a.bf" + " does not record its key rules", 0),
            0u) << events.notes[0];
}

// A file given twice, by one name or two, is merged once: the filter
// merged with itself is itself, its keys not counted twice (which would
// also take it past its plan).
TEST(MergeJob, AFileGivenTwiceIsMergedOnce) {
  cli_test::TempDir dir;
  const gdedup::Plan plan = gdedup::plan_for_capacity(20000, 1e-4);
  save_with_keys(dir / "a.bf", plan, 0, 15000);
  save_set_with_keys(dir / "a.gds", 0, 7000);
  for (const std::string kind : {"bf", "gds"}) {
    const std::string a = dir / ("a." + kind);
    RecordingEvents events;
    const gdedup::MergeSpec spec = merge_spec({a, dir / ("./a." + kind), a}, dir / ("c." + kind));
    const gdedup::MergeResult result = gdedup::run_merge_job(spec, events);
    EXPECT_EQ(result.status, gdedup::MergeStatus::kComplete) << kind << ": " << result.message;
    EXPECT_EQ(result.inputs, 1u) << kind;
    EXPECT_TRUE(cli_test::same_bytes(cli_test::read_file(dir / ("c." + kind)), cli_test::read_file(a)))
        << kind;
    ASSERT_GE(events.notes.size(), 2u) << kind;
    EXPECT_EQ(events.notes[1], "note: " + a + " is the same file as input " + a +
                                   "; it is merged once");
    EXPECT_EQ(events.notes[0], "note: " + dir / ("./a." + kind) + " is the same file as input " +
                                   a + "; it is merged once");
    EXPECT_TRUE(contains(gdedup::merge_summary_line(spec, result),
                         kind == "bf" ? "merged 1 filter into " : "merged 1 set into "));
  }
}

// Past max_memory: the status and the line that says it, in the caller's
// words, and the output as it was (absent, or an input) with no file left.
TEST(MergeJob, PastMaxMemoryWritesNothing) {
  cli_test::TempDir dir;
  save_set_with_keys(dir / "a.gds", 0, 2000);
  save_set_with_keys(dir / "b.gds", 1000, 60000);
  const uint64_t first_bytes = gdedup::load_set_file(dir / "a.gds").set.bytes();
  const gdedup::Plan plan = gdedup::plan_for_capacity(20000, 1e-4);
  save_with_keys(dir / "a.bf", plan, 0, 7000);
  save_with_keys(dir / "b.bf", plan, 7000, 20000);
  const uint64_t filter_bytes = gdedup::read_filter_info(dir / "a.bf").params[0].bytes();
  struct Case {
    std::vector<std::string> inputs;
    std::string output;
    uint64_t cap;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{dir / "a.gds", dir / "b.gds"}, dir / "a.gds", first_bytes - 1, "a.gds takes"},
      {{dir / "a.gds", dir / "b.gds"}, dir / "new.gds", first_bytes, "the union takes at least"},
      {{dir / "a.bf", dir / "b.bf"}, dir / "b.bf", filter_bytes - 1, "the merged filter takes"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.says);
    const bool existed = cli_test::exists(c.output);
    const std::string before = existed ? cli_test::read_file(c.output) : "";
    RecordingEvents events;
    const gdedup::MergeResult result =
        gdedup::run_merge_job(merge_spec(c.inputs, c.output, c.cap), events);
    EXPECT_EQ(result.status, gdedup::MergeStatus::kPastMaxMemory);
    EXPECT_FALSE(result.saved);
    EXPECT_EQ(result.message.rfind("cannot merge into " + c.output + ": ", 0), 0u)
        << result.message;
    EXPECT_TRUE(contains(result.message, c.says)) << result.message;
    EXPECT_TRUE(contains(result.message, "more than cap=9 allows; nothing was written; a "
                                         "larger max_memory lets the merge go on"))
        << result.message;
    EXPECT_EQ(cli_test::exists(c.output), existed);
    if (existed) {
      EXPECT_EQ(cli_test::read_file(c.output), before);
    }
  }
  // No temporary or lock file is left beside the inputs.
  const std::filesystem::directory_iterator files(dir.path());
  EXPECT_EQ(std::distance(begin(files), end(files)), 4);
}

// A disk that fails the output's write: the error names the file, and the
// output (here an input) is as it was, with no temporary file left.
TEST(MergeJob, AFailingWriteLeavesTheOutputAsItWas) {
  cli_test::TempDir dir;
  save_set_with_keys(dir / "a.gds", 0, 100);
  save_set_with_keys(dir / "b.gds", 50, 200);
  const gdedup::Plan plan = gdedup::plan_for_capacity(1000, 1e-3);
  save_with_keys(dir / "a.bf", plan, 0, 100);
  save_with_keys(dir / "b.bf", plan, 50, 200);
  for (const std::string kind : {".gds", ".bf"}) {
    const std::string output = dir / ("a" + kind);
    const std::string before = cli_test::read_file(output);
    gdedup::test::FailingReplacement disk(output, 1);
    gdedup::JobEvents events;
    try {
      gdedup::run_merge_job(merge_spec({output, dir / ("b" + kind)}, output), events);
      ADD_FAILURE() << "merged into " << output;
    } catch (const gdedup::Error& e) {
      EXPECT_EQ(e.kind(), gdedup::ErrorKind::io) << e.what();
      EXPECT_TRUE(contains(e.what(), output)) << e.what();
    }
    EXPECT_EQ(cli_test::read_file(output), before);
  }
  const std::filesystem::directory_iterator files(dir.path());
  EXPECT_EQ(std::distance(begin(files), end(files)), 4);
}

// Rules that differ, a set beside a filter, and outputs a hostile caller
// names: refused with the error a front end maps, nothing written.
TEST(MergeJob, RefusesOtherRulesMixedKindsAndOutputsOfAnotherKind) {
  cli_test::TempDir dir;
  gdedup::KeyRules nul;
  nul.record_separator = '\0';
  save_set_with_keys(dir / "a.gds", 0, 100);
  save_set_with_keys(dir / "z.gds", 0, 100, nul);
  const gdedup::Plan plan = gdedup::plan_for_capacity(1000, 1e-3);
  gdedup::Filter filter = gdedup::Filter::from_plan(plan);
  gdedup::save_filter(filter, dir / "f.bf", gdedup::KeyRules{});
  gdedup::save_filter(filter, dir / "zf.bf", nul);
  cli_test::write_file(dir / "notes.txt", "keep me\n");
  ASSERT_EQ(symlink((dir / "f.bf").c_str(), (dir / "link.bf").c_str()), 0);
  gdedup::JobEvents events;
  struct Case {
    std::vector<std::string> inputs;
    std::string output;
    gdedup::ErrorKind kind;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{dir / "a.gds", dir / "z.gds"}, dir / "out", gdedup::ErrorKind::key_rules_mismatch,
       "different rules"},
      {{dir / "f.bf", dir / "zf.bf"}, dir / "out", gdedup::ErrorKind::key_rules_mismatch,
       "different"},
      {{dir / "a.gds", dir / "f.bf"}, dir / "out", gdedup::ErrorKind::other_mode,
       dir / "a.gds is an exact set (written with exact) and " + dir / "f.bf a Bloom filter"},
      {{dir / "f.bf", dir / "f.bf"}, dir / "notes.txt", gdedup::ErrorKind::invalid_argument,
       "not a readable gdedup filter file"},
      {{dir / "f.bf"}, dir / "out", gdedup::ErrorKind::invalid_argument, "at least two"},
      {{dir / "f.bf", dir / "f.bf"}, "", gdedup::ErrorKind::invalid_argument,
       "output names no file"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.says);
    try {
      gdedup::run_merge_job(merge_spec(c.inputs, c.output), events);
      ADD_FAILURE() << "merged";
    } catch (const gdedup::UsageError& e) {
      EXPECT_EQ(e.kind(), c.kind);
      EXPECT_TRUE(contains(e.what(), c.says)) << e.what();
    }
  }
  // A link as the output is never followed nor replaced.
  EXPECT_THROW(gdedup::run_merge_job(merge_spec({dir / "f.bf", dir / "f.bf"}, dir / "link.bf"),
                                     events),
               gdedup::Error);
  EXPECT_EQ(cli_test::read_file(dir / "notes.txt"), "keep me\n");
  EXPECT_FALSE(cli_test::exists(dir / "out"));
  // Other rules than the seed give way to ignore_key_rules: the first's are kept.
  gdedup::MergeSpec spec = merge_spec({dir / "z.gds", dir / "a.gds"}, dir / "out");
  spec.ignore_key_rules = true;
  gdedup::run_merge_job(spec, events);
  EXPECT_EQ(gdedup::load_set_file(dir / "out").rules, nul);
}

TEST(CliHelp, EachCommandsHelpMentionsEachOption) {
  REQUIRE_GDEDUP_BIN();
  const std::vector<std::string> job_common = {
      "--input-format", "--stats", "--quiet", "--progress", "--no-progress", "--filter",
      "--key", "--delimiter", "--normalize", "--backend", "--threads", "--batch"};
  const std::vector<std::string> sizing = {"--capacity", "--fpr", "--memory", "--block-bits"};
  struct Case {
    std::string command;
    std::vector<std::string> options;
  };
  std::vector<Case> cases = {
      {"dedup", job_common}, {"build", job_common}, {"query", job_common},
      {"merge", {"--output", "--quiet"}}, {"info", {"--json", "--all-inputs"}},
      {"plan", {"--json", "--exact"}}};
  for (const std::string& s : sizing) {
    cases[0].options.push_back(s);
    cases[1].options.push_back(s);
    cases[5].options.push_back(s);
  }
  cases[0].options.push_back("--output");
  cases[0].options.push_back("--duplicates");
  cases[2].options.push_back("--output");
  cases[2].options.push_back("--absent");
  for (const Case& c : cases) {
    const Result r = run({c.command, "--help"});
    EXPECT_EQ(r.status, 0) << c.command;
    for (const std::string& option : c.options) {
      EXPECT_TRUE(contains(r.out, option)) << c.command << " --help lacks " << option;
    }
  }
  const Result top = run({"--help"});
  EXPECT_EQ(top.status, 0);
  for (const char* command : {"dedup", "build", "query", "merge", "info", "plan"}) {
    EXPECT_TRUE(contains(top.out, command)) << command;
  }
  const Result dedup_help = run({"dedup", "--help"});
  for (const char* group : {"Input:", "Output:", "Filter:", "Sizing", "Keys:", "Backend:"}) {
    EXPECT_TRUE(contains(dedup_help.out, group)) << group;
  }
}

TEST(CliHelp, VersionPrintsTheVersion) {
  REQUIRE_GDEDUP_BIN();
  const Result r = run({"--version"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out.rfind("gdedup ", 0), 0u) << r.out;
}

TEST(CliUsage, OptionErrorsOfJobsExitTwoBeforeAnyWork) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  cli_test::write_file(dir / "in.txt", "a\nb\n");
  const std::string in = dir / "in.txt";
  const std::string out = dir / "out.txt";
  const std::vector<std::vector<std::string>> cases = {
      {"dedup", in, "-o", out, "--key", "field:0"},
      {"dedup", in, "-o", out, "--key", "column"},
      {"dedup", in, "-o", out, "--delimiter", "ab"},
      {"dedup", in, "-o", out, "--normalize", "url,bogus"},
      {"dedup", in, "-o", out, "--backend", "tpu"},
      {"dedup", in, "-o", out, "--threads", "0"},
      {"dedup", in, "-o", out, "--batch", "0"},
      {"dedup", in, "-o", out, "--batch", "x"},
      {"dedup", in, "-o", out, "--input-format", "csv"},
      {"dedup", in, "-o", out, "--capacity", "-5"},
      {"dedup", in, "-o", out, "--progress", "--no-progress"},
      {"build", in},  // no --filter
      {"query", in},  // no --filter
  };
  for (const auto& args : cases) {
    const Result r = run(args);
    std::string joined;
    for (const auto& a : args) joined += a + " ";
    EXPECT_EQ(r.status, 2) << joined << r.err;
    EXPECT_TRUE(cli_test::one_error_line(r.err)) << joined;
    EXPECT_FALSE(cli_test::exists(out)) << joined;
  }
}

// A library caller's thread counts past the most a job takes are refused
// before any file is read or written, as the front ends refuse them.
TEST(Job, ThreadCountsPastTheMostAreRefusedBeforeAnyWork) {
  cli_test::TempDir dir;
  cli_test::write_file(dir / "in.txt", "a\nb\na\n");
  for (const bool exact : {false, true}) {
    for (const bool filter_threads : {false, true}) {
      gdedup::JobSpec spec;
      spec.inputs.paths = {dir / "in.txt"};
      spec.output = dir / "out.txt";
      spec.exact = exact;
      (filter_threads ? spec.filter_threads : spec.threads) = gdedup::kMaxJobThreads + 1;
      gdedup::JobEvents events;
      try {
        gdedup::run_job(spec, events);
        ADD_FAILURE() << "ran with " << gdedup::kMaxJobThreads + 1 << " threads";
      } catch (const gdedup::UsageError& e) {
        EXPECT_TRUE(contains(e.what(), std::to_string(gdedup::kMaxJobThreads + 1))) << e.what();
        EXPECT_TRUE(contains(e.what(), "give 1 to 4096 threads")) << e.what();
      }
      EXPECT_FALSE(std::filesystem::exists(dir / "out.txt"));
    }
  }
}

}  // namespace
