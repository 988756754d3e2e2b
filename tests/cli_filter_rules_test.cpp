// Filter files of version 2 and later through the command: query, dedup -f and merge
// refuse a filter whose key rules differ from the command's (showing both),
// version 1 files are used with a note, a growing filter saved with -f
// continues exactly as one run would have for any batch size and thread
// count, merge of growing filters holds every key of both, and info shows
// layers and key rules. Outputs are checked against exact dedup.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>
#include <vector>

#include "cli_util.h"
#include "format/file_writer.h"
#include "format/filter_file_format.h"
#include "gdedup/filter_file.h"

namespace {

using cli_test::Result;
using cli_test::run;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// "https://Example.com/p<N>?a=1" style URLs whose url normalization differs
// from their bytes (the host's case), `count` of them from `seed`.
std::vector<std::string> mixed_case_urls(size_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::string> out;
  for (size_t i = 0; i < count; ++i) {
    out.push_back("https://Example.COM/p" + std::to_string(rng() % 1000000000) + "/" +
                  std::to_string(i));
  }
  return out;
}

const std::string kUrlRules =
    "normalize trim,lowercase-scheme,lowercase-host";  // the start of url's rules

TEST(CliFilterRules, NormalizedFilterQueriedWithoutNormalizationIsRefused) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  cli_test::write_file(dir / "urls.txt", cli_test::join_records(mixed_case_urls(2000, 1)));
  ASSERT_EQ(run({"build", "-q", dir / "urls.txt", "-f", dir / "f.bf", "--normalize", "url"}).status,
            0);
  // Before version 2 this reported none of the 2,000 present.
  Result r = run({"query", dir / "urls.txt", "-f", dir / "f.bf"});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(cli_test::one_error_line(r.err)) << r.err;
  EXPECT_TRUE(contains(r.err, kUrlRules)) << r.err;
  EXPECT_TRUE(contains(r.err, "normalize none")) << r.err;
  EXPECT_TRUE(contains(r.err, "--ignore-key-rules")) << r.err;
  // With the rules it was built with, every key is present.
  r = run({"query", "-q", dir / "urls.txt", "-f", dir / "f.bf", "--normalize", "url"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, cli_test::read_file(dir / "urls.txt"));
  // Overridden, it runs, with a warning.
  r = run({"query", dir / "urls.txt", "-f", dir / "f.bf", "--ignore-key-rules"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "warning:")) << r.err;
}

TEST(CliFilterRules, ScrapyFilterRefusesOtherRules) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  cli_test::write_file(dir / "urls.txt", cli_test::join_records(mixed_case_urls(500, 2)));
  ASSERT_EQ(
      run({"build", "-q", dir / "urls.txt", "-f", dir / "f.bf", "--normalize", "scrapy"}).status,
      0);
  for (const char* other : {"scrapy,keep-fragments", "url", "none"}) {
    const Result r =
        run({"query", dir / "urls.txt", "-f", dir / "f.bf", "--normalize", other});
    EXPECT_EQ(r.status, 2) << other << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "normalize scrapy, ")) << r.err;
  }
  const Result r =
      run({"query", "-q", dir / "urls.txt", "-f", dir / "f.bf", "--normalize", "scrapy"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, cli_test::read_file(dir / "urls.txt"));
}

TEST(CliFilterRules, EveryDifferenceInKeyRulesIsRefusedByEveryCommand) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  cli_test::write_file(dir / "in.txt", "a,b,c\nd,e,f\n");
  const std::vector<std::string> built = {"--key", "field:2", "--delimiter", "comma"};
  std::vector<std::string> build = {"build", "-q", dir / "in.txt", "-f", dir / "f.bf"};
  build.insert(build.end(), built.begin(), built.end());
  ASSERT_EQ(run(build).status, 0);
  struct Case {
    std::vector<std::string> keys;
    const char* shows;
  };
  const Case cases[] = {
      {{"--key", "field:1", "--delimiter", "comma"}, "key field:1"},
      {{"--key", "field:2", "--delimiter", "tab"}, "delimiter tab"},
      {{"--key", "field:2", "--delimiter", "comma", "--normalize", "trim"}, "normalize trim"},
      {{}, "key whole"},
      {{"-z", "--key", "field:2", "--delimiter", "comma"}, "separator nul"},
  };
  for (const Case& c : cases) {
    for (const char* command : {"query", "dedup"}) {
      std::vector<std::string> args = {command, dir / "in.txt", "-f", dir / "f.bf"};
      args.insert(args.end(), c.keys.begin(), c.keys.end());
      const std::string before = cli_test::read_file(dir / "f.bf");
      const Result r = run(args);
      EXPECT_EQ(r.status, 2) << command << " " << c.shows << ": " << r.err;
      EXPECT_TRUE(contains(r.err, c.shows)) << r.err;
      EXPECT_TRUE(contains(r.err, "key field:2, delimiter comma")) << r.err;
      EXPECT_EQ(cli_test::read_file(dir / "f.bf"), before) << command;
    }
  }
  // The same rules in another spelling are the same rules.
  EXPECT_EQ(run({"query", "-q", dir / "in.txt", "-f", dir / "f.bf", "--key", "field:2",
                 "--delimiter", ","})
                .status,
            0);

  // A seed of its own (a library caller's): refused even with equal options.
  gdedup::Filter other(gdedup::FilterParams{8, {256, 8}, 12345});
  gdedup::KeyRules seeded;
  seeded.seed = 12345;
  gdedup::save_filter(other, dir / "seeded.bf", seeded);
  const Result r = run({"query", dir / "in.txt", "-f", dir / "seeded.bf"});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "seed 0x0000000000003039")) << r.err;

  // merge: both rules shown, unless overridden.
  ASSERT_EQ(run({"build", "-q", dir / "in.txt", "-f", dir / "whole.bf"}).status, 0);
  Result m = run({"merge", dir / "f.bf", dir / "whole.bf", "-o", dir / "m.bf"});
  EXPECT_EQ(m.status, 2) << m.err;
  EXPECT_TRUE(contains(m.err, "key field:2") && contains(m.err, "key whole")) << m.err;
  m = run({"merge", "-q", dir / "f.bf", dir / "whole.bf", "-o", dir / "m.bf",
           "--ignore-key-rules"});
  EXPECT_EQ(m.status, 0) << m.err;
}

// JSON and CDXJ keys are key rules as field keys are: a filter built with
// json:url refuses every other key, in any command; the missing-key policy
// is not a key rule.
TEST(CliFilterRules, JsonAndCdxjKeysAreKeyRules) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  cli_test::write_file(dir / "in.jsonl",
                       "{\"url\":\"http://a/\",\"links\":[\"x\"]}\n{\"id\":2}\n");
  ASSERT_EQ(run({"build", "-q", dir / "in.jsonl", "-f", dir / "f.bf", "--key", "json:url",
                 "--missing-key", "keep"})
                .status,
            0);
  for (const char* other : {"field:2", "whole", "json:id", "cdxj:url", "json:url.x"}) {
    for (const char* command : {"query", "dedup"}) {
      const Result r = run({command, dir / "in.jsonl", "-f", dir / "f.bf", "--key", other});
      EXPECT_EQ(r.status, 2) << command << " " << other << ": " << r.err;
      EXPECT_TRUE(contains(r.err, "key json:url, ")) << r.err;
      EXPECT_TRUE(contains(r.err, std::string("key ") + other + ", ")) << r.err;
    }
  }
  const Result r = run({"query", "-q", dir / "in.jsonl", "-f", dir / "f.bf", "--key",
                        "json:url", "--missing-key", "drop"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "{\"url\":\"http://a/\",\"links\":[\"x\"]}\n");
  EXPECT_TRUE(contains(run({"info", dir / "f.bf"}).out, "key json:url"));
  // Paths in other spellings are the same rules.
  ASSERT_EQ(run({"build", "-q", dir / "in.jsonl", "-f", dir / "l.bf", "--key", "json:links[0]",
                 "--missing-key", "drop"})
                .status,
            0);
  EXPECT_EQ(run({"query", "-q", dir / "in.jsonl", "-f", dir / "l.bf", "--key", "json:links.0",
                 "--missing-key", "drop"})
                .status,
            0);
}

// Records that end at NUL (-z) may hold newlines: the filter's keys are
// those whole records. Queried with newline-separated input (before the
// separator was a key rule) it silently found none of them.
TEST(CliFilterRules, RecordSeparatorIsAKeyRule) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  std::string nul_records;
  for (int i = 0; i < 300; ++i) {
    nul_records += "first line " + std::to_string(i) + "\nsecond line" + std::string(1, '\0');
  }
  cli_test::write_file(dir / "in.z", nul_records);
  ASSERT_EQ(run({"build", "-q", "-z", dir / "in.z", "-f", dir / "z.bf"}).status, 0);
  const std::string before = cli_test::read_file(dir / "z.bf");
  for (const char* command : {"query", "dedup"}) {
    const Result r = run({command, dir / "in.z", "-f", dir / "z.bf"});
    EXPECT_EQ(r.status, 2) << command << ": " << r.err;
    EXPECT_TRUE(cli_test::one_error_line(r.err)) << r.err;
    EXPECT_TRUE(contains(r.err, "separator nul")) << r.err;
    EXPECT_TRUE(contains(r.err, "separator newline")) << r.err;
    EXPECT_TRUE(contains(r.err, "-z")) << r.err;
    EXPECT_EQ(r.out, "") << command;
    EXPECT_EQ(cli_test::read_file(dir / "z.bf"), before) << command;
  }
  // With -z every record is present; overridden, the newline query runs.
  Result r = run({"query", "-q", "-z", dir / "in.z", "-f", dir / "z.bf"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, nul_records);
  r = run({"query", "-q", dir / "in.z", "-f", dir / "z.bf", "--ignore-key-rules"});
  EXPECT_EQ(r.status, 0) << r.err;
  // dedup -f -z continues the filter: every record was seen.
  r = run({"dedup", "-q", "-z", dir / "in.z", "-f", dir / "z.bf"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "");

  // merge with a newline-separated filter: both shown, unless overridden.
  cli_test::write_file(dir / "in.txt", "first line 1\nsecond line\n");
  ASSERT_EQ(run({"build", "-q", dir / "in.txt", "-f", dir / "n.bf"}).status, 0);
  Result m = run({"merge", dir / "z.bf", dir / "n.bf", "-o", dir / "m.bf"});
  EXPECT_EQ(m.status, 2) << m.err;
  EXPECT_TRUE(contains(m.err, "separator nul") && contains(m.err, "separator newline")) << m.err;
  EXPECT_FALSE(cli_test::exists(dir / "m.bf"));
  m = run({"merge", "-q", dir / "z.bf", dir / "n.bf", "-o", dir / "m.bf", "--ignore-key-rules"});
  EXPECT_EQ(m.status, 0) << m.err;
  r = run({"info", dir / "m.bf"});
  EXPECT_TRUE(contains(r.out, "separator nul")) << r.out;
}

TEST(CliFilterRules, Version1FileIsUsedWithANote) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  cli_test::write_file(dir / "in.txt", "x\ny\n");
  ASSERT_EQ(run({"build", "-q", dir / "in.txt", "-f", dir / "v2.bf", "--no-grow"}).status, 0);
  const gdedup::Filter filter = gdedup::load_filter(dir / "v2.bf");
  namespace ff = gdedup::filter_file;
  gdedup::format::write_file(dir / "v1.bf", "cannot save",
                             {ff::kMagic, ff::kVersion1, filter.words(), filter.params(),
                              filter.counters(), "", {}, {}});
  Result r = run({"query", dir / "in.txt", "-f", dir / "v1.bf", "--normalize", "url"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "does not record the key rules")) << r.err;
  r = run({"info", dir / "v1.bf"});
  EXPECT_TRUE(contains(r.out, "unknown (a version 1 file")) << r.out;
  // Saved again by dedup -f, it records this command's rules.
  ASSERT_EQ(run({"dedup", "-q", dir / "in.txt", "-f", dir / "v1.bf"}).status, 0);
  r = run({"info", dir / "v1.bf"});
  EXPECT_TRUE(contains(r.out, "input text, key whole, delimiter tab, normalize none, separator "
                            "newline"))
      << r.out;
}

// Records with repeats: 12,000 distinct keys in 20,000 records.
std::vector<std::string> records(uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::string> out;
  for (int i = 0; i < 20000; ++i) out.push_back("k" + std::to_string(rng() % 12000));
  return out;
}

std::vector<std::string> first_occurrences(const std::vector<std::string>& in) {
  std::set<std::string> seen;
  std::vector<std::string> out;
  for (const std::string& r : in) {
    if (seen.insert(r).second) out.push_back(r);
  }
  return out;
}

// A filter grown through -f over two days is the filter of one run over
// both, for any batch size and thread count, and keeps growing.
TEST(CliFilterRules, GrowthThroughFilterFilesIsTheSameForAnyBatchAndThreads) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  const std::vector<std::string> day1 = records(1), day2 = records(2);
  std::vector<std::string> both = day1;
  both.insert(both.end(), day2.begin(), day2.end());
  cli_test::write_file(dir / "day1.txt", cli_test::join_records(day1));
  cli_test::write_file(dir / "day2.txt", cli_test::join_records(day2));
  cli_test::write_file(dir / "both.txt", cli_test::join_records(both));
  const std::vector<std::string> size = {"-q", "--capacity", "2000", "--fpr", "1e-7",
                                         "--backend", "cpu"};
  std::vector<std::string> one = {"dedup", dir / "both.txt", "-f", dir / "one.bf"};
  one.insert(one.end(), size.begin(), size.end());
  const Result whole = run(one);
  ASSERT_EQ(whole.status, 0) << whole.err;
  EXPECT_EQ(whole.out, cli_test::join_records(first_occurrences(both)));
  const gdedup::FilterFile grown = gdedup::load_filter_file(dir / "one.bf");
  EXPECT_GE(grown.layers.size(), 3u);
  EXPECT_EQ(grown.rules.keys_offered, both.size());
  const std::string reference = cli_test::read_file(dir / "one.bf");

  for (const char* batch : {"1", "7", "4096"}) {
    for (const char* threads : {"1", "2"}) {
      const std::string where = std::string("batch ") + batch + ", threads " + threads;
      const std::string f = dir / (std::string("f") + batch + threads + ".bf");
      std::string out;
      for (const char* day : {"day1.txt", "day2.txt"}) {
        std::vector<std::string> args = {"dedup", dir / day, "-f", f, "--batch", batch,
                                         "--threads", threads};
        args.insert(args.end(), size.begin(), size.end());
        const Result r = run(args);
        ASSERT_EQ(r.status, 0) << where << ": " << r.err;
        out += r.out;
      }
      EXPECT_EQ(out, whole.out) << where;
      EXPECT_TRUE(cli_test::same_bytes(cli_test::read_file(f), reference)) << where;
    }
  }
}

TEST(CliFilterRules, MergedGrowingFiltersHoldEveryKeyOfBoth) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  const std::vector<std::string> a = records(3), b = records(4);
  cli_test::write_file(dir / "a.txt", cli_test::join_records(a));
  cli_test::write_file(dir / "b.txt", cli_test::join_records(b));
  const std::vector<std::string> size = {"-q", "--capacity", "2000"};
  for (const char* name : {"a", "b"}) {
    std::vector<std::string> args = {"build", dir / (std::string(name) + ".txt"), "-f",
                                     dir / (std::string(name) + ".bf")};
    args.insert(args.end(), size.begin(), size.end());
    ASSERT_EQ(run(args).status, 0);
  }
  // Both inputs filled their older layers, so the merged ones are past
  // their plan: written, with every key, but said and failed (exit 4).
  Result r = run({"merge", "-q", dir / "a.bf", dir / "b.bf", "-o", dir / "m.bf"});
  EXPECT_EQ(r.status, 4) << r.err;
  EXPECT_TRUE(contains(r.err, "of the merged filter " + dir / "m.bf" + " is far past its plan"))
      << r.err;
  const gdedup::FilterFile m = gdedup::load_filter_file(dir / "m.bf");
  const gdedup::FilterFile fa = gdedup::load_filter_file(dir / "a.bf");
  ASSERT_EQ(m.layers.size(), fa.layers.size());
  for (size_t i = 0; i < m.layers.size(); ++i) {
    EXPECT_EQ(m.layers[i].params(), fa.layers[i].params());
  }
  // The sum, or, since its newest layer is past what the keys before the
  // next decision leave room for, rounded up to where growth is decided
  // (docs/FORMAT.md, "Merging").
  const uint64_t every = fa.rules.growth->check_every;
  EXPECT_EQ(m.rules.keys_offered, (a.size() + b.size() + every - 1) / every * every);
  std::vector<std::string> all = a;
  all.insert(all.end(), b.begin(), b.end());
  cli_test::write_file(dir / "all.txt", cli_test::join_records(all));
  r = run({"query", "-q", "--absent", dir / "all.txt", "-f", dir / "m.bf"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "") << "keys of an input missing from the merged filter";

  // Another growth rule (another first capacity): refused, naming both.
  ASSERT_EQ(run({"build", "-q", dir / "a.txt", "-f", dir / "c.bf", "--capacity", "4000"}).status,
            0);
  r = run({"merge", dir / "a.bf", dir / "c.bf", "-o", dir / "m2.bf"});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "grow by different rules")) << r.err;
  // A growing filter and a fixed one: refused.
  ASSERT_EQ(run({"build", "-q", dir / "a.txt", "-f", dir / "d.bf", "--no-grow"}).status, 0);
  r = run({"merge", dir / "a.bf", dir / "d.bf", "-o", dir / "m3.bf"});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "one grows and the other is fixed")) << r.err;
}

TEST(CliFilterRules, InfoShowsLayersAndKeyRules) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  cli_test::write_file(dir / "in.txt", cli_test::join_records(records(5)));
  ASSERT_EQ(run({"build", "-q", dir / "in.txt", "-f", dir / "f.bf", "--capacity", "2000",
                 "--normalize", "trim"})
                .status,
            0);
  Result r = run({"info", dir / "f.bf"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "input text, key whole, delimiter tab, normalize trim")) << r.out;
  EXPECT_TRUE(contains(r.out, "layer 3:")) << r.out;
  EXPECT_TRUE(contains(r.out, "20,000 keys offered")) << r.out;
  r = run({"info", "--json", dir / "f.bf"});
  EXPECT_TRUE(contains(r.out, "\"key_rules\": \"input text")) << r.out;
  EXPECT_TRUE(contains(r.out, "\"keys_offered\": 20000")) << r.out;
  EXPECT_TRUE(contains(r.out, "\"layers\": [")) << r.out;
}

}  // namespace
