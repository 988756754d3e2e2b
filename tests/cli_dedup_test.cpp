// End-to-end runs of dedup, build and query through the binary, compared
// with exact answers computed here. Filters are sized far beyond the data
// (--capacity 1M --fpr 1e-9 for at most 60k keys: about 6e-5 expected false
// positives per run), so the exact answer is the expected one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include "cli_util.h"
#include "gdedup/filter_file.h"

namespace {

using cli_test::Result;
using cli_test::run;
using cli_test::RunSpec;

const std::vector<std::string> kExact = {"--capacity", "1M", "--fpr", "1e-9", "-q"};

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

// `count` URLs drawn from `distinct` (fixed seed), so most repeat.
std::vector<std::string> make_urls(size_t count, size_t distinct, uint64_t seed = 7) {
  std::mt19937_64 rng(seed);
  std::vector<std::string> out;
  out.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    const uint64_t id = rng() % distinct;
    out.push_back("https://host" + std::to_string(id % 97) + ".example.com/page/" +
                  std::to_string(id) + "?q=" + std::to_string(id * 31 % 1000));
  }
  return out;
}

using cli_test::first_occurrences;

std::vector<std::string> first_occurrences(const std::vector<std::string>& records) {
  return first_occurrences(records, [](const std::string& r) { return r; });
}

bool have_tool(const char* tool) {
  return cli_test::shell(std::string("command -v ") + tool + " >/dev/null 2>&1");
}

TEST(CliDedup, KeepsExactlyTheFirstOccurrences) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  const auto urls = make_urls(200000, 50000);
  cli_test::write_file(dir / "in.txt", cli_test::join_records(urls));
  const Result r = run(with({"dedup", dir / "in.txt", "-o", dir / "out.txt"}, kExact));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");  // -q
  EXPECT_EQ(cli_test::read_file(dir / "out.txt"), cli_test::join_records(first_occurrences(urls)));
}

TEST(CliDedup, StandardInputAndOutput) {
  REQUIRE_GDEDUP_BIN();
  const auto urls = make_urls(50000, 10000);
  Result r = run(with({"dedup"}, kExact), cli_test::join_records(urls));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, cli_test::join_records(first_occurrences(urls)));
  r = run(with({"dedup", "-"}, kExact), cli_test::join_records(urls));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, cli_test::join_records(first_occurrences(urls)));
}

// A filter that grows needs no size (cli_growth_test.cpp); a fixed one does.
TEST(CliDedup, StandardInputWithoutSizeNeedsCapacityWhenNotGrowing) {
  REQUIRE_GDEDUP_BIN();
  const Result r = run({"dedup", "--no-grow"}, "a\nb\n");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(cli_test::one_error_line(r.err)) << r.err;
  EXPECT_NE(r.err.find("--capacity"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
  // A memory budget is enough.
  const Result m = run({"dedup", "-q", "--memory", "1M"}, "a\nb\na\n");
  EXPECT_EQ(m.status, 0) << m.err;
  EXPECT_EQ(m.out, "a\nb\n");
}

TEST(CliDedup, EstimatesTheCapacityOfFilesAndSaysSo) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  const auto urls = make_urls(100000, 30000);
  cli_test::write_file(dir / "in.txt", cli_test::join_records(urls));
  const Result r = run({"dedup", dir / "in.txt", "-o", dir / "out.txt", "--fpr", "1e-9"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(cli_test::all_lines_prefixed(r.err)) << r.err;
  EXPECT_NE(r.err.find("no --capacity given; estimated"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("backend cpu"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("100,000 records"), std::string::npos) << r.err;  // summary
  EXPECT_EQ(cli_test::read_file(dir / "out.txt"), cli_test::join_records(first_occurrences(urls)));
}

TEST(CliDedup, GzipAndZstdInputsGiveThePlainOutput) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  const auto urls = make_urls(100000, 20000);
  cli_test::write_file(dir / "in.txt", cli_test::join_records(urls));
  const std::string expected = cli_test::join_records(first_occurrences(urls));
  int tried = 0;
  if (have_tool("gzip")) {
    ASSERT_TRUE(cli_test::shell("gzip -c '" + dir / "in.txt" + "' > '" + dir / "in.gz" + "'"));
    const Result r = run(with({"dedup", dir / "in.gz"}, kExact));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, expected);
    // Estimated capacity from a compressed file works too.
    const Result e = run({"dedup", dir / "in.gz", "--fpr", "1e-9"});
    ASSERT_EQ(e.status, 0) << e.err;
    EXPECT_EQ(e.out, expected);
    ++tried;
  }
  if (have_tool("zstd")) {
    ASSERT_TRUE(cli_test::shell("zstd -q -c '" + dir / "in.txt" + "' > '" + dir / "in.zst" + "'"));
    const Result r = run(with({"dedup", dir / "in.zst"}, kExact));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, expected);
    // Compressed data on standard input is detected as well.
    RunSpec spec;
    spec.args = with({"dedup"}, kExact);
    spec.stdin_path = dir / "in.zst";
    const Result s = run(spec);
    ASSERT_EQ(s.status, 0) << s.err;
    EXPECT_EQ(s.out, expected);
    ++tried;
  }
  if (tried == 0) GTEST_SKIP() << "neither gzip nor zstd is installed";
}

TEST(CliDedup, CompressedPartsOfAnySizeGiveThePlainOutput) {
  REQUIRE_GDEDUP_BIN();
  // A gzip file of 40 members read by 3 workers in parts of at least
  // --compressed-piece-bytes: parts of one member each, of several, and the
  // whole file must all give the plain file's output and filter.
  cli_test::TempDir dir;
  const auto urls = make_urls(40000, 12000);
  cli_test::write_file(dir / "in.txt", cli_test::join_records(urls));
  ASSERT_TRUE(cli_test::shell("cd '" + dir.path() + "' && split -n l/40 in.txt part. && "
                              "for p in part.*; do gzip -c $p; done > in.gz"));
  const Result plain = run(with({"dedup", dir / "in.txt", "-f", dir / "plain.gdf"}, kExact));
  ASSERT_EQ(plain.status, 0) << plain.err;
  EXPECT_EQ(plain.out, cli_test::join_records(first_occurrences(urls)));
  for (const char* part : {"1", "4K", "64K", "1G"}) {
    const std::string filter = dir / (std::string("gz") + part + ".gdf");
    const Result r = run(with({"dedup", dir / "in.gz", "--threads", "3",
                               "--compressed-piece-bytes", part, "-f", filter}, kExact));
    ASSERT_EQ(r.status, 0) << part << ": " << r.err;
    EXPECT_TRUE(r.out == plain.out) << part;
    EXPECT_TRUE(cli_test::same_bytes(cli_test::read_file(filter),
                                     cli_test::read_file(dir / "plain.gdf"))) << part;
  }
  const Result zero = run({"dedup", dir / "in.gz", "--compressed-piece-bytes", "0"});
  EXPECT_EQ(zero.status, 2);
  EXPECT_NE(zero.err.find("--compressed-piece-bytes 0: must be at least 1 byte"),
            std::string::npos) << zero.err;
}

TEST(CliDedup, SeveralInputsAreOneStream) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  const auto a = make_urls(30000, 9000, 1);
  const auto b = make_urls(30000, 9000, 2);
  cli_test::write_file(dir / "a.txt", cli_test::join_records(a));
  // The second input's last line has no newline: still one record.
  std::string b_text = cli_test::join_records(b);
  b_text.pop_back();
  cli_test::write_file(dir / "b.txt", b_text);
  std::vector<std::string> all = a;
  all.insert(all.end(), b.begin(), b.end());
  const Result r = run(with({"dedup", dir / "a.txt", dir / "b.txt"}, kExact));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, cli_test::join_records(first_occurrences(all)));
}

TEST(CliDedup, DuplicatesAreTheExactComplement) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  const auto urls = make_urls(80000, 20000);
  cli_test::write_file(dir / "in.txt", cli_test::join_records(urls));
  const Result kept = run(with({"dedup", dir / "in.txt"}, kExact));
  const Result dups = run(with({"dedup", "--duplicates", dir / "in.txt"}, kExact));
  ASSERT_EQ(kept.status, 0) << kept.err;
  ASSERT_EQ(dups.status, 0) << dups.err;
  // Walk the input: each record is the next of one list or the other.
  const auto k = cli_test::split_records(kept.out);
  const auto d = cli_test::split_records(dups.out);
  std::unordered_set<std::string> seen;
  size_t ki = 0, di = 0;
  for (const std::string& u : urls) {
    if (seen.insert(u).second) {
      ASSERT_LT(ki, k.size());
      ASSERT_EQ(k[ki++], u);
    } else {
      ASSERT_LT(di, d.size());
      ASSERT_EQ(d[di++], u);
    }
  }
  EXPECT_EQ(ki, k.size());
  EXPECT_EQ(di, d.size());
}

TEST(CliDedup, FieldKeysKeepWholeRecords) {
  REQUIRE_GDEDUP_BIN();
  std::mt19937_64 rng(3);
  std::vector<std::string> records;
  for (int i = 0; i < 40000; ++i) {
    const uint64_t id = rng() % 5000;
    records.push_back(std::to_string(i) + "\thttp://a.example/" + std::to_string(id) + "\tx" +
                      std::to_string(rng() % 3));
  }
  records.push_back("no-second-field");
  records.push_back("also-none");  // the same (empty) key as the line before
  records.push_back("1,2,3");
  const auto field = [](const std::string& r, char delim, size_t n) {
    size_t start = 0;
    for (size_t i = 1; i < n; ++i) {
      const size_t at = r.find(delim, start);
      if (at == std::string::npos) return std::string();
      start = at + 1;
    }
    const size_t end = r.find(delim, start);
    return r.substr(start, end == std::string::npos ? std::string::npos : end - start);
  };
  Result r = run(with({"dedup", "--key", "field:2"}, kExact), cli_test::join_records(records));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, cli_test::join_records(first_occurrences(
                       records, [&](const std::string& s) { return field(s, '\t', 2); })));
  r = run(with({"dedup", "--key", "field:1", "--delimiter", "comma"}, kExact),
          cli_test::join_records(records));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, cli_test::join_records(first_occurrences(
                       records, [&](const std::string& s) { return field(s, ',', 1); })));
}

TEST(CliDedup, UrlNormalizationMergesEquivalentSpellings) {
  REQUIRE_GDEDUP_BIN();
  // Each record is a spelling of page N that the url preset makes equal:
  // case of scheme and host, default port, fragment, escaped unreserved bytes,
  // surrounding spaces. The oracle knows N.
  std::mt19937_64 rng(11);
  std::vector<std::string> records;
  std::vector<uint64_t> ids;
  for (int i = 0; i < 30000; ++i) {
    const uint64_t id = rng() % 4000;
    const std::string path = "/p/" + std::to_string(id);
    std::string url;
    switch (rng() % 6) {
      case 0: url = "http://www.example.com" + path; break;
      case 1: url = "HTTP://WWW.Example.COM" + path; break;
      case 2: url = "http://www.example.com:80" + path; break;
      case 3: url = "http://www.example.com" + path + "#section"; break;
      case 4: url = "http://www.example.com/%70/" + std::to_string(id); break;  // %70 = 'p'
      default: url = "  http://www.example.com." + path + "\r"; break;
    }
    records.push_back(url);
    ids.push_back(id);
  }
  std::unordered_set<uint64_t> seen;
  std::vector<std::string> expected;
  for (size_t i = 0; i < records.size(); ++i) {
    if (seen.insert(ids[i]).second) expected.push_back(records[i]);
  }
  const Result r = run(with({"dedup", "--normalize", "url"}, kExact), cli_test::join_records(records));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, cli_test::join_records(expected));
}

TEST(CliDedup, ThreadsAndBatchSizesDoNotChangeOutputOrFilter) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  // The CPU backend splits a batch over threads only from 16,384 keys per
  // thread, so the batches below give every thread count that many (70,000
  // records: 4 slices at 70,000, 3 at 60,000, 2 at 40,000). A key repeated
  // in two slices must still be kept at its first occurrence. With a big
  // filter the output is the exact answer; with a small one (most keys share
  // blocks with others) it is compared across runs, with the filter bytes.
  // Batch size 1 costs a queue hand-off per record, but shows batch edges.
  const auto urls = make_urls(70000, 20000);
  cli_test::write_file(dir / "in.txt", cli_test::join_records(urls));
  const std::string exact = cli_test::join_records(first_occurrences(urls));
  struct Setting {
    std::string threads, batch;
  };
  const std::vector<Setting> settings = {{"1", "70000"}, {"2", "40000"}, {"3", "60000"},
                                         {"4", "70000"}, {"2", "1000000"}, {"2", "7"},
                                         {"2", "1"}};
  for (const char* capacity : {"1M", "1000"}) {
    std::string first_out, first_filter;
    for (const Setting& s : settings) {
      const std::string where = std::string("capacity ") + capacity + ", threads " + s.threads +
                                ", batch " + s.batch;
      const std::string filter = dir / ("f" + s.threads + "_" + s.batch + "_" + capacity + ".bf");
      const Result r = run({"dedup", dir / "in.txt", "-q", "--capacity", capacity, "--fpr", "1e-9",
                            "--no-grow", "--backend", "cpu", "--threads", s.threads,
                            "--filter-threads", s.threads, "--batch", s.batch, "-f", filter});
      // The small filter ends so far past its plan that the job exits 4,
      // after writing everything.
      const bool exact_run = std::string(capacity) == "1M";
      ASSERT_EQ(r.status, exact_run ? 0 : 4) << where << ": " << r.err;
      if (exact_run) {
        EXPECT_TRUE(r.out == exact) << where;
      }
      const std::string bits = cli_test::read_file(filter);
      if (first_out.empty()) {
        first_out = r.out;
        first_filter = bits;
        ASSERT_FALSE(first_out.empty());
      } else {
        EXPECT_TRUE(r.out == first_out) << where;
        EXPECT_TRUE(cli_test::same_bytes(bits, first_filter)) << where;
      }
    }
  }
}

TEST(CliDedup, FilterFileCarriesOverBetweenRuns) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  const auto day1 = make_urls(30000, 8000, 1);
  const auto day2 = make_urls(30000, 8000, 2);  // overlaps day 1 heavily
  cli_test::write_file(dir / "day1.txt", cli_test::join_records(day1));
  cli_test::write_file(dir / "day2.txt", cli_test::join_records(day2));
  const std::string filter = dir / "seen.bf";
  Result r = run(with({"dedup", dir / "day1.txt", "-f", filter}, kExact));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, cli_test::join_records(first_occurrences(day1)));
  // The same sizing options again: the file exists, they match it, no warning.
  r = run(with({"dedup", dir / "day2.txt", "-f", filter}, kExact));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  std::vector<std::string> both = day1;
  both.insert(both.end(), day2.begin(), day2.end());
  const auto all_new = first_occurrences(both);
  const std::vector<std::string> day2_new(all_new.begin() + first_occurrences(day1).size(),
                                          all_new.end());
  EXPECT_EQ(r.out, cli_test::join_records(day2_new));
  // Other sizing options with an existing filter: used as is, with a warning.
  r = run({"dedup", dir / "day2.txt", "-f", filter, "--capacity", "5"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("warning: " + filter + " exists"), std::string::npos) << r.err;
}

TEST(CliBuildQuery, QueryAgreesWithDedup) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  const auto known = make_urls(30000, 10000, 1);
  const auto incoming = make_urls(20000, 10000, 2);
  cli_test::write_file(dir / "known.txt", cli_test::join_records(known));
  cli_test::write_file(dir / "incoming.txt", cli_test::join_records(incoming));
  const std::string filter = dir / "known.bf";
  Result r = run(with({"build", dir / "known.txt", "-f", filter}, kExact));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "");
  const std::unordered_set<std::string> set(known.begin(), known.end());
  std::string present, absent;
  for (const std::string& u : incoming) (set.count(u) ? present : absent) += u + "\n";
  const std::string before = cli_test::read_file(filter);
  r = run({"query", "-q", dir / "incoming.txt", "-f", filter});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, present);
  r = run({"query", "-q", "--absent", dir / "incoming.txt", "-f", filter});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, absent);
  EXPECT_EQ(cli_test::read_file(filter), before);  // query never saves
  // dedup with a copy of the filter writes the first occurrences of the absent ones.
  cli_test::write_file(dir / "copy.bf", before);
  r = run({"dedup", "-q", dir / "incoming.txt", "-f", dir / "copy.bf"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, cli_test::join_records(first_occurrences(cli_test::split_records(absent))));
}

TEST(CliBuildQuery, MergedHalvesEqualTheWholeBuild) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  // Halves by key, so that no key is in both: the insertions counters (new
  // keys per build) then add up to the whole's as well as the bits do.
  const auto urls = make_urls(40000, 12000);
  std::vector<std::string> first, second;
  for (const std::string& u : urls) (std::hash<std::string>()(u) % 2 ? first : second).push_back(u);
  cli_test::write_file(dir / "1.txt", cli_test::join_records(first));
  cli_test::write_file(dir / "2.txt", cli_test::join_records(second));
  cli_test::write_file(dir / "all.txt", cli_test::join_records(urls));
  const std::vector<std::string> size = {"-q", "--capacity", "20000", "--fpr", "1e-5"};
  ASSERT_EQ(run(with({"build", dir / "1.txt", "-f", dir / "1.bf"}, size)).status, 0);
  ASSERT_EQ(run(with({"build", dir / "2.txt", "-f", dir / "2.bf"}, size)).status, 0);
  ASSERT_EQ(run(with({"build", dir / "all.txt", "-f", dir / "all.bf"}, size)).status, 0);
  const Result r = run({"merge", "-q", dir / "1.bf", dir / "2.bf", "-o", dir / "merged.bf"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(cli_test::same_bytes(cli_test::read_file(dir / "merged.bf"),
                                   cli_test::read_file(dir / "all.bf")));
  // Extending an existing filter gives the same bytes as well.
  ASSERT_EQ(run({"build", "-q", dir / "2.txt", "-f", dir / "1.bf"}).status, 0);
  EXPECT_TRUE(cli_test::same_bytes(cli_test::read_file(dir / "1.bf"),
                                   cli_test::read_file(dir / "all.bf")));
}

TEST(CliBuildQuery, MergedOverlappingHalvesHaveTheWholesBits) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  // Halves by position share keys; each build counts its own new keys, so
  // only the insertions counters (and checksums) may differ.
  const auto urls = make_urls(40000, 12000);
  const std::vector<std::string> first(urls.begin(), urls.begin() + 17000);
  const std::vector<std::string> second(urls.begin() + 17000, urls.end());
  cli_test::write_file(dir / "1.txt", cli_test::join_records(first));
  cli_test::write_file(dir / "2.txt", cli_test::join_records(second));
  cli_test::write_file(dir / "all.txt", cli_test::join_records(urls));
  const std::vector<std::string> size = {"-q", "--capacity", "20000", "--fpr", "1e-5"};
  ASSERT_EQ(run(with({"build", dir / "1.txt", "-f", dir / "1.bf"}, size)).status, 0);
  ASSERT_EQ(run(with({"build", dir / "2.txt", "-f", dir / "2.bf"}, size)).status, 0);
  ASSERT_EQ(run(with({"build", dir / "all.txt", "-f", dir / "all.bf"}, size)).status, 0);
  ASSERT_EQ(run({"merge", "-q", dir / "1.bf", dir / "2.bf", "-o", dir / "m.bf"}).status, 0);
  const gdedup::FilterFile merged = gdedup::load_filter_file(dir / "m.bf");
  const gdedup::FilterFile whole = gdedup::load_filter_file(dir / "all.bf");
  ASSERT_EQ(merged.layers.size(), whole.layers.size());
  for (size_t i = 0; i < whole.layers.size(); ++i) {
    const gdedup::Filter& a = merged.layers[i];
    ASSERT_EQ(a.params(), whole.layers[i].params());
    EXPECT_EQ(std::memcmp(a.words(), whole.layers[i].words(), a.params().bytes()), 0);
  }
}

TEST(CliDedup, U64FingerprintsInAndOut) {
  REQUIRE_GDEDUP_BIN();
  std::mt19937_64 rng(5);
  std::vector<uint64_t> values;
  for (int i = 0; i < 20000; ++i) values.push_back(rng() % 3000 * 0x9E3779B97F4A7C15ull);
  std::string input(values.size() * 8, '\0');
  std::memcpy(input.data(), values.data(), input.size());  // little-endian hosts
  std::unordered_set<uint64_t> seen;
  std::string expected;
  for (uint64_t v : values) {
    if (seen.insert(v).second) expected.append(reinterpret_cast<const char*>(&v), 8);
  }
  const Result r = run(with({"dedup", "--input-format", "u64"}, kExact), input);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, expected);
}

TEST(CliDedup, StatsFileAndSummary) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  const Result r = run({"dedup", "--capacity", "1000", "--stats", dir / "s.json", "--backend", "cpu"},
                       "a\nb\na\nc\nb\n");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "a\nb\nc\n");
  EXPECT_TRUE(cli_test::all_lines_prefixed(r.err)) << r.err;
  EXPECT_NE(r.err.find("5 records: 3 kept, 2 duplicates dropped"), std::string::npos) << r.err;
  const std::string json = cli_test::read_file(dir / "s.json");
  for (const char* member :
       {"\"records\": 5,", "\"kept\": 3,", "\"dropped\": 2,", "\"input_bytes\": 10,",
        "\"output_bytes\": 6,", "\"seconds\": ", "\"records_per_second\": ", "\"filter_fill\": ",
        "\"estimated_distinct_keys\": ", "\"current_fpr\": ", "\"backend\": \"cpu",
        "\"filter_saved\": false,", "\"probably_lost\": null,", "\"capacity_needed\": null"}) {
    EXPECT_NE(json.find(member), std::string::npos) << member << " not in " << json;
  }
}

TEST(CliDedup, OverCapacityWarnsOnceAndFarPastThePlanExitsFour) {
  REQUIRE_GDEDUP_BIN();
  const auto urls = make_urls(20000, 20000);
  cli_test::TempDir dir;
  const Result r = run({"dedup", "-q", "--no-grow", "--capacity", "100", "--batch", "500",
                        "-f", dir / "f.gdf", "--stats", dir / "s.json"},
                       cli_test::join_records(urls));
  ASSERT_EQ(r.status, 4) << r.err;
  // --stats says the filter was not saved, the records probably lost and
  // the capacity that would have served, as the message does.
  const std::string json = cli_test::read_file(dir / "s.json");
  EXPECT_NE(json.find("\"filter_saved\": false,"), std::string::npos) << json;
  EXPECT_EQ(json.find("\"probably_lost\": null"), std::string::npos) << json;
  const size_t at = json.find("\"capacity_needed\": ");
  ASSERT_NE(at, std::string::npos) << json;
  EXPECT_NE(r.err.find("--capacity " + json.substr(at + 19, json.find_first_of(",\n}", at) -
                                                              at - 19)),
            std::string::npos)
      << r.err << json;
  EXPECT_FALSE(cli_test::exists(dir / "f.gdf"));
  EXPECT_TRUE(cli_test::all_lines_prefixed(r.err)) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 2) << r.err;
  EXPECT_NE(r.err.find("warning: more distinct keys than the 100"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("the filter ended far past its plan: planned for 100 distinct keys"),
            std::string::npos)
      << r.err;
  // Everything was still written: no key twice, first occurrences in order.
  const std::vector<std::string> out = cli_test::split_records(r.out);
  EXPECT_EQ(std::set<std::string>(out.begin(), out.end()).size(), out.size());
  // A little past the plan is within the promise: a warning, exit 0.
  const Result near = run({"dedup", "-q", "--capacity", "19000", "-f", dir / "near.gdf",
                           "--stats", dir / "near.json"},
                          cli_test::join_records(urls));
  EXPECT_EQ(near.status, 0) << near.err;
  EXPECT_NE(cli_test::read_file(dir / "near.json").find("\"filter_saved\": true,"),
            std::string::npos);
}

TEST(CliDedup, ProgressLineIsErasedAtTheEnd) {
  REQUIRE_GDEDUP_BIN();
  const auto urls = make_urls(20000, 5000);
  const Result r = run({"dedup", "--progress", "-q", "--capacity", "1M", "--batch", "100"},
                       cli_test::join_records(urls));
  ASSERT_EQ(r.status, 0) << r.err;
  // Whatever was drawn, the stderr ends with the line erased.
  if (!r.err.empty()) {
    EXPECT_NE(r.err.find("records"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.back(), '\r');
  }
  const Result off = run({"dedup", "--no-progress", "-q", "--capacity", "1M"},
                         cli_test::join_records(urls));
  EXPECT_EQ(off.err, "");
}

TEST(CliDedup, ClosedPipeIsAQuietSuccess) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  cli_test::write_file(dir / "in.txt", cli_test::join_records(make_urls(300000, 300000)));
  const std::string cmd = "bash -c '\"" + cli_test::binary() + "\" dedup -q --capacity 1M \"" +
                          dir / "in.txt" + "\" 2>\"" + dir / "err" +
                          "\" | head -n 1 >/dev/null; exit ${PIPESTATUS[0]}'";
  EXPECT_EQ(std::system(cmd.c_str()), 0);
  EXPECT_EQ(cli_test::read_file(dir / "err"), "");
}

}  // namespace
