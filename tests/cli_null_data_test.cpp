// -z / --null-data through the command: records end at NUL, may hold
// newlines, and go out NUL-separated. Outputs are compared with the first
// occurrences computed here (filters sized far past the data, so the exact
// answer is the expected one), or with the newline run of the same records
// where the rule under test (normalization, decoding) is the newline path's.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

#include "cli_util.h"
#include "gdedup/filter_file.h"

namespace {

using cli_test::contains;
using cli_test::first_occurrences;
using cli_test::kExact;
using cli_test::Result;
using cli_test::run;
using cli_test::with;


std::string joined(const std::vector<std::string>& records, char separator) {
  std::string out;
  for (const std::string& r : records) out += r + separator;
  return out;
}

// Records drawn from `distinct` shapes (fixed seed): some empty, some with
// newlines, CRs and tabs inside, every tenth shape long.
std::vector<std::string> make_records(size_t count, size_t distinct, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::string> out;
  for (size_t i = 0; i < count; ++i) {
    const uint64_t id = rng() % distinct;
    std::string r;
    if (id % 17 == 0) {
      r = "";
    } else if (id % 10 == 3) {
      r = "long\n" + std::string(20000 + id % 5000, static_cast<char>('a' + id % 26)) +
          std::to_string(id);
    } else {
      r = "line one " + std::to_string(id) + "\nline\ttwo\r\n" + std::to_string(id % 7);
    }
    out.push_back(r);
  }
  return out;
}

std::string whole(const std::string& r) { return r; }

TEST(CliNullData, KeepsTheFirstOccurrenceOfRecordsHoldingNewlines) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  const auto records = make_records(20000, 3000, 1);
  std::string input = joined(records, '\0');
  input += "tail without a separator\nstill the tail";  // a last record with no NUL
  cli_test::write_file(dir / "in.z", input);
  std::vector<std::string> all = records;
  all.push_back("tail without a separator\nstill the tail");
  const std::string expected = joined(first_occurrences(all, whole), '\0');
  // Batches of 7 records put the long ones and the end across batch edges.
  for (const char* batch : {"7", "100000"}) {
    const Result r = run(with({"dedup", "-z", dir / "in.z", "-o", dir / "out.z", "--batch", batch},
                              kExact));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(cli_test::same_bytes(cli_test::read_file(dir / "out.z"), expected)) << batch;
  }
  // --duplicates is the exact complement, NUL-separated too.
  const Result d = run(with({"dedup", "--null-data", "--duplicates", dir / "in.z"}, kExact));
  ASSERT_EQ(d.status, 0) << d.err;
  std::unordered_set<std::string> seen;
  std::string dropped;
  for (const std::string& r : all) {
    if (!seen.insert(r).second) dropped += r + '\0';
  }
  EXPECT_TRUE(cli_test::same_bytes(d.out, dropped));
}

TEST(CliNullData, EmptyRecordsAndEmptyInput) {
  REQUIRE_GDEDUP_BIN();
  Result r = run(with({"dedup", "-z"}, kExact), std::string("\0\0a\0\0a\0b", 8));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, std::string("\0a\0b\0", 5));
  r = run(with({"dedup", "-z"}, kExact), "");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "");
  // Newlines alone are one record: "a\n\na\n" holds no NUL.
  r = run(with({"dedup", "-z"}, kExact), "a\n\na\n");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, std::string("a\n\na\n\0", 6));
}

TEST(CliNullData, FieldKeysIncludingANewlineDelimiter) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  const auto records = make_records(20000, 3000, 2);
  cli_test::write_file(dir / "in.z", joined(records, '\0'));
  // The second line of each record is its key.
  auto second_line = [](const std::string& r) {
    const size_t a = r.find('\n');
    if (a == std::string::npos) return std::string();
    const size_t b = r.find('\n', a + 1);
    return r.substr(a + 1, b == std::string::npos ? std::string::npos : b - a - 1);
  };
  Result r = run(with({"dedup", "-z", dir / "in.z", "--key", "field:2", "--delimiter", "\\x0a"},
                      kExact));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(cli_test::same_bytes(r.out, joined(first_occurrences(records, second_line), '\0')));
  // A tab-separated field spans the newline after it.
  auto after_tab = [](const std::string& r) {
    const size_t t = r.find('\t');
    return t == std::string::npos ? std::string() : r.substr(t + 1);
  };
  r = run(with({"dedup", "-z", dir / "in.z", "--key", "field:2"}, kExact));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(cli_test::same_bytes(r.out, joined(first_occurrences(records, after_tab), '\0')));
}

// Records with no newline in them: -z on NUL-separated data must give what
// the newline run gives on the same records, separators apart, whatever the
// key rules and the compression.
TEST(CliNullData, AgreesWithTheNewlineRunOnNormalizedAndCompressedInput) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  std::mt19937_64 rng(3);
  std::vector<std::string> urls;
  for (int i = 0; i < 30000; ++i) {
    const uint64_t id = rng() % 5000;
    urls.push_back(std::string(id % 3 ? "HTTP" : "http") + "://Host" + std::to_string(id % 50) +
                   ".Example.com:80/p/" + std::to_string(id / 2) + "#frag" +
                   std::to_string(id % 4));
  }
  cli_test::write_file(dir / "in.txt", joined(urls, '\n'));
  cli_test::write_file(dir / "in.z", joined(urls, '\0'));
  ASSERT_TRUE(cli_test::shell("gzip -c '" + dir / "in.z" + "' > '" + dir / "in.z.gz" + "'"));
  const Result lines = run(with({"dedup", dir / "in.txt", "--normalize", "url"}, kExact));
  ASSERT_EQ(lines.status, 0) << lines.err;
  std::string expected = lines.out;
  for (char& c : expected) c = c == '\n' ? '\0' : c;
  for (const char* input : {"in.z", "in.z.gz"}) {
    const Result r = run(with({"dedup", "-z", dir / input, "--normalize", "url"}, kExact));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(cli_test::same_bytes(r.out, expected)) << input;
  }
  // Keys are the same bytes either way: so are the filters built from them,
  // whose files differ only in the separator their key rules record.
  Result b = run(with({"build", dir / "in.txt", "-f", dir / "lines.gdf", "--normalize", "url"},
                      kExact));
  ASSERT_EQ(b.status, 0) << b.err;
  b = run(with({"build", "-z", dir / "in.z.gz", "-f", dir / "nul.gdf", "--normalize", "url"},
               kExact));
  ASSERT_EQ(b.status, 0) << b.err;
  const gdedup::FilterFile from_lines = gdedup::load_filter_file(dir / "lines.gdf");
  const gdedup::FilterFile from_nul = gdedup::load_filter_file(dir / "nul.gdf");
  ASSERT_EQ(from_lines.layers.size(), from_nul.layers.size());
  for (size_t i = 0; i < from_lines.layers.size(); ++i) {
    const gdedup::Filter& a = from_lines.layers[i];
    const gdedup::Filter& z = from_nul.layers[i];
    ASSERT_EQ(a.params(), z.params()) << "layer " << i;
    EXPECT_EQ(a.counters().insertions, z.counters().insertions) << "layer " << i;
    EXPECT_EQ(std::memcmp(a.words(), z.words(), a.params().bytes()), 0) << "layer " << i;
  }
  ASSERT_TRUE(from_lines.rules.keys && from_nul.rules.keys);
  EXPECT_EQ(from_lines.rules.keys->record_separator, '\n');
  EXPECT_EQ(from_nul.rules.keys->record_separator, '\0');
  gdedup::KeyRules nul_as_lines = *from_nul.rules.keys;
  nul_as_lines.record_separator = '\n';
  EXPECT_EQ(nul_as_lines, *from_lines.rules.keys);
}

TEST(CliNullData, ALongRecordIsNamedAtTheLimit) {
  REQUIRE_GDEDUP_BIN();
  const std::string input = std::string("short\0", 6) + std::string(5000, 'x') + "\nmore";
  const Result r = run(with({"dedup", "-z", "--max-record-length", "4K"}, kExact), input);
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(cli_test::one_error_line(r.err)) << r.err;
  EXPECT_NE(r.err.find("record 2 (at byte offset 6) is longer than the record length limit of "
                       "4096 bytes without a NUL"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.out, std::string("short\0", 6));
}

TEST(CliNullData, RefusesOptionsItCannotHonour) {
  REQUIRE_GDEDUP_BIN();
  Result r = run({"dedup", "-z", "--input-format", "u64"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("-z has no effect with --input-format u64"), std::string::npos) << r.err;
  r = run({"dedup", "-z", "--key", "field:2", "--delimiter", "\\x00"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--delimiter \\x00 is the record separator (NUL, with -z)"),
            std::string::npos)
      << r.err;
  r = run({"dedup", "--key", "field:2", "--delimiter", "\\x0a"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("is the record separator (newline), which never occurs inside a record; "
                       "give another delimiter, or -z"),
            std::string::npos)
      << r.err;
}

// A checkpointed -z run stopped by a failing checkpoint write resumes to the
// uninterrupted output; resuming without -z is refused, naming the option.
TEST(CliNullData, ResumesAndTheSeparatorIsPartOfTheCheckpoint) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  std::mt19937_64 rng(4);
  std::string input;
  for (int i = 0; i < 300000; ++i) input += "k\n" + std::to_string(rng() % 150000) + '\0';
  cli_test::write_file(dir / "in.z", input);
  const std::vector<std::string> base = {"dedup", "-z", dir / "in.z", "--capacity", "1M",
                                         "--fpr", "0.01", "--batch", "20000", "-q"};
  const Result ref = run(with(base, {"-o", dir / "ref.z"}));
  ASSERT_EQ(ref.status, 0) << ref.err;
  const auto job = with(base, {"-o", dir / "out.z", "--checkpoint", dir / "ck",
                               "--checkpoint-every", "100K"});
  const Result stopped = cli_test::run_failing_write(dir / "ck", 2, job);
  ASSERT_EQ(stopped.status, 1) << stopped.err;
  ASSERT_TRUE(cli_test::exists(dir / "ck"));
  std::vector<std::string> without_z;
  for (const std::string& a : with(job, {"--resume"})) {
    if (a != "-z") without_z.push_back(a);
  }
  Result r = run(without_z);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("the record separator option differs: the checkpoint was written with "
                       "NUL, this run has newline"),
            std::string::npos)
      << r.err;
  r = run(with(job, {"--resume"}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(cli_test::same_bytes(cli_test::read_file(dir / "out.z"),
                                   cli_test::read_file(dir / "ref.z")));
}

}  // namespace
