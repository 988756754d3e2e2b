// Awkward and broken inputs and outputs, through the binary: odd bytes pass
// through untouched, damaged compressed data and unwritable outputs fail
// with one line naming the problem after writing what came before, and
// mistakes in paths are caught before any work.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <unordered_set>
#include <vector>

#include "cli_util.h"

namespace {

using cli_test::Result;
using cli_test::run;

const std::vector<std::string> kSized = {"dedup", "-q", "--capacity", "1M", "--fpr", "1e-9"};

std::vector<std::string> args(std::vector<std::string> more) {
  std::vector<std::string> all = kSized;
  all.insert(all.end(), more.begin(), more.end());
  return all;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

bool have_tool(const char* tool) {
  return cli_test::shell(std::string("command -v ") + tool + " >/dev/null 2>&1");
}

std::string numbered_lines(int count) {
  std::string text;
  for (int i = 0; i < count; ++i) text += "line-" + std::to_string(i % (count / 2)) + "\n";
  return text;
}

std::string first_occurrences(const std::string& text) {
  std::unordered_set<std::string> seen;
  std::string out;
  for (const std::string& r : cli_test::split_records(text)) {
    if (seen.insert(r).second) out += r + "\n";
  }
  return out;
}

TEST(CliBadInput, EmptyInputGivesEmptyOutput) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  cli_test::write_file(dir / "empty.txt", "");
  Result r = run(args({dir / "empty.txt"}));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "");
  // Sized from the input: an empty file still gets a (tiny) filter.
  r = run({"dedup", "-q", dir / "empty.txt"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(CliBadInput, BytesPassThroughUnchanged) {
  REQUIRE_GDEDUP_BIN();
  struct Case {
    const char* name;
    std::string input;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"no final newline", "a\nb\na\nc", "a\nb\nc\n"},
      {"final duplicate without newline", "a\nb\na", "a\nb\n"},
      {"CRLF endings", "a\r\nb\r\na\r\na\n", "a\r\nb\r\na\n"},  // "a\r" and "a" differ
      {"NUL bytes", std::string("x\0y\nx\0z\nx\0y\n", 12), std::string("x\0y\nx\0z\n", 8)},
      {"invalid UTF-8", "\xff\xfe\n\xc3\x28\n\xff\xfe\n", "\xff\xfe\n\xc3\x28\n"},
      {"empty records", "\n\na\n\n", "\na\n"},
      {"tabs and spaces", "a\tb\n a\tb\na\tb\n", "a\tb\n a\tb\n"},
  };
  for (const Case& c : cases) {
    const Result r = run(kSized, c.input);
    EXPECT_EQ(r.status, 0) << c.name << ": " << r.err;
    EXPECT_EQ(r.out, c.expected) << c.name;
  }
}

TEST(CliBadInput, HundredMegabyteRecord) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  const std::string big(100u << 20, 'u');
  cli_test::write_file(dir / "big.txt", "a\n" + big + "\nb\n" + big + "\na\n");
  cli_test::RunSpec spec;
  spec.args = args({dir / "big.txt", "-o", dir / "out.txt", "--max-record-length", "100MiB"});
  const Result r = run(spec);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(cli_test::same_bytes(cli_test::read_file(dir / "out.txt"),
                                   "a\n" + big + "\nb\n"));
  // Past the default limit of 64 MiB: refused, naming the record, after the
  // records before it; the output of the run above is left as it was.
  const Result d = run(args({dir / "big.txt", "-o", dir / "out.txt"}));
  EXPECT_EQ(d.status, 1);
  EXPECT_TRUE(cli_test::one_error_line(d.err)) << d.err;
  EXPECT_TRUE(contains(d.err, "big.txt: record 2 (at byte offset 2) is longer than the record "
                              "length limit of 67108864 bytes without a newline"))
      << d.err;
  EXPECT_TRUE(contains(d.err, "The output " + dir / "out.txt" + " was left as it was"))
      << d.err;
  EXPECT_TRUE(contains(d.err, "; --max-record-length sets the record length limit")) << d.err;
  EXPECT_TRUE(cli_test::same_bytes(cli_test::read_file(dir / "out.txt"),
                                   "a\n" + big + "\nb\n"));
}

TEST(CliBadInput, TruncatedGzipWritesWhatCameBeforeThenFails) {
  REQUIRE_GDEDUP_BIN();
  if (!have_tool("gzip")) GTEST_SKIP() << "gzip is not installed";
  cli_test::TempDir dir;
  const std::string text = numbered_lines(400000);
  cli_test::write_file(dir / "in.txt", text);
  ASSERT_TRUE(cli_test::shell("gzip -c '" + dir / "in.txt" + "' > '" + dir / "in.gz" + "'"));
  const std::string gz = cli_test::read_file(dir / "in.gz");
  cli_test::write_file(dir / "cut.gz", gz.substr(0, gz.size() / 2));
  const Result r = run(args({dir / "cut.gz"}));
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(cli_test::one_error_line(r.err)) << r.err;
  EXPECT_TRUE(contains(r.err, "cut.gz")) << r.err;
  EXPECT_TRUE(contains(r.err, "offset")) << r.err;
  // What was streamed is a non-empty prefix of the full answer, whole lines
  // only, and the message says how much.
  const std::string& out = r.out;
  const auto lines = std::count(out.begin(), out.end(), '\n');
  EXPECT_TRUE(contains(r.err, "standard output holds the " + std::to_string(lines) +
                                  " records written before the failure (" +
                                  std::to_string(out.size()) + " bytes)"))
      << r.err;
  const std::string full = first_occurrences(text);
  EXPECT_FALSE(out.empty());
  EXPECT_LT(out.size(), full.size());
  EXPECT_EQ(full.compare(0, out.size(), out), 0);
  EXPECT_EQ(out.back(), '\n');
}

// Lines of pseudo-random numbers: they compress about 2:1, so the frame has
// many blocks to damage.
std::string random_lines(int count) {
  std::string text;
  uint64_t x = 88172645463325252ull;
  for (int i = 0; i < count; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    text += std::to_string(x % 2000000) + "\n";
  }
  return text;
}

void check_corrupt_zstd(int lines) {
  cli_test::TempDir dir;
  const std::string text = random_lines(lines);
  cli_test::write_file(dir / "in.txt", text);
  ASSERT_TRUE(cli_test::shell("zstd -q -c '" + dir / "in.txt" + "' > '" + dir / "in.zst" + "'"));
  std::string zst = cli_test::read_file(dir / "in.zst");
  for (size_t i = zst.size() * 2 / 3; i < zst.size() * 2 / 3 + 64; ++i) zst[i] ^= 0x5a;
  cli_test::write_file(dir / "bad.zst", zst);
  const Result r = run(args({dir / "bad.zst"}));
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(cli_test::one_error_line(r.err)) << r.err;
  EXPECT_TRUE(contains(r.err, "bad.zst")) << r.err;
  EXPECT_TRUE(contains(r.err, "offset")) << r.err;
  const std::string& out = r.out;
  const std::string full = first_occurrences(text);
  EXPECT_FALSE(out.empty());
  EXPECT_LT(out.size(), full.size());
  EXPECT_EQ(full.compare(0, out.size(), out), 0);
}

TEST(CliBadInput, CorruptZstdWritesWhatCameBeforeThenFails) {
  REQUIRE_GDEDUP_BIN();
  if (!have_tool("zstd")) GTEST_SKIP() << "zstd is not installed";
  check_corrupt_zstd(1500000);  // about 12 MB of text
}

// A frame whose whole content fits the reader's output buffer (8 MiB) is
// decoded by libzstd in one shot, so damage anywhere in it currently loses
// every record of the frame and is reported at offset 0
// (src/io/zstd_source.cpp would need to hand libzstd smaller output slices).
TEST(CliBadInput, CorruptSmallZstdWritesWhatCameBeforeThenFails) {
  REQUIRE_GDEDUP_BIN();
  if (!have_tool("zstd")) GTEST_SKIP() << "zstd is not installed";
  check_corrupt_zstd(300000);  // about 2 MB of text
}

TEST(CliBadInput, UnreadableInputsFailBeforeAnyOutput) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  cli_test::write_file(dir / "good.txt", "a\nb\n");
  const std::vector<std::string> bad = {dir / "missing.txt", dir.path()};
  for (const std::string& path : bad) {
    // The bad input comes second: the first is fine and still nothing is written.
    const Result r = run(args({dir / "good.txt", path, "-o", dir / "out.txt"}));
    EXPECT_EQ(r.status, 1) << path;
    EXPECT_TRUE(cli_test::one_error_line(r.err)) << r.err;
    EXPECT_TRUE(contains(r.err, path)) << r.err;
    EXPECT_FALSE(cli_test::exists(dir / "out.txt")) << path;
  }
  if (geteuid() != 0) {  // root reads anything
    cli_test::write_file(dir / "locked.txt", "x\n");
    chmod((dir / "locked.txt").c_str(), 0);
    const Result r = run(args({dir / "locked.txt", "-o", dir / "out.txt"}));
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(contains(r.err, "locked.txt")) << r.err;
    EXPECT_FALSE(cli_test::exists(dir / "out.txt"));
  }
  // Without sizing options the estimate reads the inputs first: same result.
  const Result r = run({"dedup", dir / "good.txt", dir / "missing.txt", "-o", dir / "out.txt"});
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(cli_test::one_error_line(r.err)) << r.err;
  EXPECT_FALSE(cli_test::exists(dir / "out.txt"));
}

TEST(CliBadInput, FullDeviceIsARuntimeError) {
  REQUIRE_GDEDUP_BIN();
  if (!cli_test::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  const Result r = run(args({"-o", "/dev/full"}), numbered_lines(200000));
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(cli_test::one_error_line(r.err)) << r.err;
  EXPECT_TRUE(contains(r.err, "No space left")) << r.err;
  EXPECT_TRUE(contains(r.err, "/dev/full")) << r.err;
}

TEST(CliBadInput, OutputThatIsAnInputIsRefusedUntouched) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  const std::string text = "a\nb\na\n";
  cli_test::write_file(dir / "in.txt", text);
  ASSERT_EQ(symlink((dir / "in.txt").c_str(), (dir / "link.txt").c_str()), 0);
  const std::vector<std::string> spellings = {dir / "in.txt", dir.path() + "/./in.txt",
                                              dir / "link.txt"};
  for (const std::string& out : spellings) {
    const Result r = run(args({dir / "other.txt", dir / "in.txt", "-o", out}));
    // other.txt does not exist: the same-file check comes first or second,
    // either way nothing is written; with it present the refusal is exit 2.
    EXPECT_NE(r.status, 0) << out;
    EXPECT_EQ(cli_test::read_file(dir / "in.txt"), text) << out;
  }
  cli_test::write_file(dir / "other.txt", "z\n");
  for (const std::string& out : spellings) {
    const Result r = run(args({dir / "other.txt", dir / "in.txt", "-o", out}));
    EXPECT_EQ(r.status, 2) << out;
    EXPECT_TRUE(cli_test::one_error_line(r.err)) << r.err;
    EXPECT_TRUE(contains(r.err, out)) << r.err;
    EXPECT_TRUE(contains(r.err, dir / "in.txt")) << r.err;
    EXPECT_EQ(cli_test::read_file(dir / "in.txt"), text) << out;
  }
  // Standard input redirected from the output file is caught too.
  cli_test::RunSpec spec;
  spec.args = args({"-o", dir / "in.txt"});
  spec.stdin_path = dir / "in.txt";
  const Result r = run(spec);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(cli_test::read_file(dir / "in.txt"), text);
}

// An option that takes a FILE given without one takes the next option as
// its file: refused, before anything is read or written, for every such
// option of every command; "-" (standard output or input) and ./-o are
// files.
TEST(CliBadInput, AnOptionIsNeverTakenForAFile) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  cli_test::write_file(dir / "in.txt", "a\nb\na\n");
  ASSERT_EQ(run(args({dir / "in.txt", "-o", dir / "f.out"})).status, 0);
  ASSERT_EQ(run({"build", "-q", "--capacity", "1M", dir / "in.txt", "-f", dir / "f.gdf"}).status,
            0);
  struct Case {
    std::vector<std::string> argv;
    std::string option;
    std::string value;
  };
  const std::string in = dir / "in.txt";
  const std::string filter = dir / "f.gdf";
  const std::vector<Case> cases = {
      {args({in, "--stats", "-o", dir / "out.txt"}), "--stats", "-o"},
      {args({in, "-o", "--stats", dir / "s.json"}), "--output", "--stats"},
      {args({in, "--checkpoint", "-q"}), "--checkpoint", "-q"},
      {args({"--files-from", "-0", in}), "--files-from", "-0"},
      {{"query", "-q", "-f", "-q", in}, "--filter", "-q"},
      {{"dedup", "-q", "-f", "--stats", in}, "--filter", "--stats"},
      {{"merge", "-q", filter, filter, "-o", "-q"}, "--output", "-q"},
  };
  for (const Case& c : cases) {
    const Result r = run(c.argv);
    EXPECT_EQ(r.status, 2) << c.option << ": " << r.err;
    EXPECT_TRUE(cli_test::one_error_line(r.err)) << r.err;
    EXPECT_TRUE(contains(r.err, c.option + ": '" + c.value + "' looks like the next option"))
        << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(std::filesystem::current_path() / "-o"));
  EXPECT_FALSE(std::filesystem::exists(dir / "out.txt"));
  // Standard output, and a file whose name starts with '-', spelled as a path.
  const Result dash = run(args({in, "-o", "-"}));
  EXPECT_EQ(dash.status, 0) << dash.err;
  EXPECT_EQ(dash.out, "a\nb\n");
  const Result named = run(args({in, "-o", dir.path() + "/-o"}));
  EXPECT_EQ(named.status, 0) << named.err;
  EXPECT_EQ(cli_test::read_file(dir.path() + "/-o"), "a\nb\n");
}

// An empty path would read as the option left out: `build -f ""` ran,
// counted its new keys and saved them nowhere, with exit status 0. Every
// option that takes a file or a folder refuses it, before anything is read
// or written.
TEST(CliBadInput, AnEmptyPathIsRefusedForEveryFileOption) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  cli_test::write_file(dir / "in.txt", "a\nb\na\n");
  const std::string in = dir / "in.txt";
  const std::string filter = dir / "f.gdf";
  ASSERT_EQ(run({"build", "-q", "--capacity", "1M", in, "-f", filter}).status, 0);
  struct Case {
    std::vector<std::string> argv;
    std::string option, type;
  };
  const std::vector<Case> cases = {
      {{"build", "-q", in, "-f", ""}, "--filter", "FILE"},
      {{"build", "-q", "--exact", in, "-f", ""}, "--filter", "FILE"},
      {{"dedup", "-q", in, "-f", ""}, "--filter", "FILE"},
      {{"query", "-q", in, "-f", ""}, "--filter", "FILE"},
      {args({in, "-o", ""}), "--output", "FILE"},
      {args({in, "--output-parts", ""}), "--output-parts", "DIR"},
      {args({in, "--stats", ""}), "--stats", "FILE"},
      {args({in, "--checkpoint", ""}), "--checkpoint", "FILE"},
      {args({"--files-from", ""}), "--files-from", "FILE"},
      {{"merge", "-q", filter, filter, "-o", ""}, "--output", "FILE"},
  };
  for (const Case& c : cases) {
    const Result r = run(c.argv);
    EXPECT_EQ(r.status, 2) << c.option << ": " << r.err;
    EXPECT_TRUE(cli_test::one_error_line(r.err)) << r.err;
    EXPECT_TRUE(contains(r.err, c.option + ": the path is empty: give " + c.option + " a " +
                                    c.type + " path"))
        << r.err;
    EXPECT_TRUE(r.out.empty()) << c.option << " wrote: " << r.out;
  }
  // Only in.txt and f.gdf: nothing written, no lock or temporary file.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()),
                          std::filesystem::directory_iterator{}),
            2);
}

TEST(CliBadInput, FilterProblemsAreReportedWithTheFileName) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  cli_test::write_file(dir / "in.txt", "a\n");
  cli_test::write_file(dir / "junk.bf", "not a filter at all");
  Result r = run({"query", dir / "in.txt", "-f", dir / "junk.bf"});
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(cli_test::one_error_line(r.err)) << r.err;
  EXPECT_TRUE(contains(r.err, "junk.bf")) << r.err;
  r = run({"query", dir / "in.txt", "-f", dir / "none.bf"});
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(contains(r.err, "none.bf")) << r.err;
  // A new filter in a folder that does not exist: refused before the run.
  r = run({"build", dir / "in.txt", "-q", "--capacity", "10", "-f", dir / "no/such/f.bf"});
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(cli_test::one_error_line(r.err)) << r.err;
  EXPECT_TRUE(contains(r.err, "no/such")) << r.err;
}

// The library's errors name no flag; the command line adds the flag to
// change from the error's kind (cli/error_advice.h).
TEST(CliBadInput, LibraryErrorsGetTheFlagToChange) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  Result r = run({"plan", "--capacity", "4611686018427387904", "--fpr", "1e-9"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(cli_test::one_error_line(r.err)) << r.err;
  EXPECT_TRUE(contains(r.err, "would need more than 128 TiB; a higher false-positive rate or "
                              "a smaller capacity needs less; raise --fpr or lower --capacity"))
      << r.err;
  cli_test::write_file(dir / "in.txt", "a\n");
  r = run(args({dir / "in.txt", "-o", dir / "out.txt", "--backend", "gpu"}));
  if (r.status == 0) return;  // this build runs on a GPU here
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(cli_test::one_error_line(r.err)) << r.err;
  EXPECT_TRUE(contains(r.err, "; use --backend cpu to run without a GPU")) << r.err;
}

}  // namespace
