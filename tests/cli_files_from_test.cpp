// Many inputs through the command: --files-from lists (newline, NUL, standard
// input), folders with --recursive, --skip-missing, bad lists, a resumed
// list job, and 100,000 tiny files under a low descriptor limit. Outputs are
// compared with the first occurrences over the inputs concatenated in the
// documented order, computed here (filters sized far past the data).
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "cli_util.h"

namespace {

using cli_test::contains;
using cli_test::first_occurrences;
using cli_test::kExact;
using cli_test::Result;
using cli_test::run;
using cli_test::with;


// `count` records drawn from `distinct` keys, seeded per file so that files
// share keys and the order of the files decides which copy is kept.
std::string make_file(uint64_t seed, size_t count, size_t distinct) {
  std::mt19937_64 rng(seed);
  std::string text;
  for (size_t i = 0; i < count; ++i) text += "https://h.example/" + std::to_string(rng() % distinct) + "\n";
  return text;
}

// The contract over `texts` read one after another: first occurrences, in order.
std::string dedup_of(const std::vector<std::string>& texts) {
  std::vector<std::string> records;
  for (const std::string& text : texts) {
    for (const std::string& r : cli_test::split_records(text)) records.push_back(r);
  }
  return cli_test::join_records(first_occurrences(records, [](const std::string& r) { return r; }));
}

// Ten files f0..f9 holding overlapping records.
struct Files {
  cli_test::TempDir dir;
  std::vector<std::string> texts;
  Files() {
    for (int i = 0; i < 10; ++i) {
      texts.push_back(make_file(i, 3000, 5000));
      cli_test::write_file(path(i), texts.back());
    }
  }
  std::string path(int i) const { return dir / ("f" + std::to_string(i)); }
};

TEST(CliFilesFrom, ArgumentsFirstThenTheListInItsOrder) {
  REQUIRE_GDEDUP_BIN();
  Files f;
  const std::vector<int> order = {7, 2, 9, 0, 5};
  std::string lines, nuls;
  for (int i : order) {
    lines += f.path(i) + "\n";
    nuls += f.path(i) + '\0';
  }
  cli_test::write_file(f.dir / "list.txt", "\n" + lines + "\n");  // blank lines name nothing
  cli_test::write_file(f.dir / "list.0", nuls);
  std::vector<std::string> texts = {f.texts[3]};
  for (int i : order) texts.push_back(f.texts[i]);
  const std::string expected = dedup_of(texts);

  Result r = run(with({"dedup", f.path(3), "--files-from", f.dir / "list.txt"}, kExact));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(cli_test::same_bytes(r.out, expected));
  r = run(with({"dedup", f.path(3), "-0", "--files-from", f.dir / "list.0"}, kExact));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(cli_test::same_bytes(r.out, expected));
  r = run(with({"dedup", f.path(3), "--files-from", "-", "-o", f.dir / "out.txt"}, kExact), lines);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(cli_test::same_bytes(cli_test::read_file(f.dir / "out.txt"), expected));
  r = run(with({"dedup", f.path(3), "--null", "--files-from", "-"}, kExact), nuls);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(cli_test::same_bytes(r.out, expected));
  // Workers take the listed files in the same order.
  for (const char* threads : {"2", "8"}) {
    r = run(with({"dedup", f.path(3), "-0", "--files-from", f.dir / "list.0", "--threads", threads},
                 kExact));
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(cli_test::same_bytes(r.out, expected)) << threads << " threads";
  }
}

TEST(CliFilesFrom, PathsWithNewlinesNeedANulList) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  const std::string odd = dir / "two\nlines.txt";
  cli_test::write_file(odd, "a\nb\na\n");
  cli_test::write_file(dir / "list.0", odd + '\0');
  cli_test::write_file(dir / "list.txt", odd + "\n");
  Result r = run(with({"dedup", "-0", "--files-from", dir / "list.0"}, kExact));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "a\nb\n");
  // Read one per line, the name is two paths, neither of which exists.
  r = run(with({"dedup", "--files-from", dir / "list.txt"}, kExact));
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(contains(r.err, "cannot open input " + dir.path() + "/two: No such file")) << r.err;
}

// A path's bytes that do not print are shown escaped, in messages and in
// `info`: a list written with CRLF line ends names "x\r", a newline in a
// name does not break a message or an info row in two, and an escape
// sequence or a byte that is not UTF-8 never reaches the terminal raw.
TEST(CliFilesFrom, UnprintableBytesInPathsAreShownEscaped) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  cli_test::write_file(dir / "crlf.txt", dir / "x\r\n");
  Result r = run(with({"dedup", "--files-from", dir / "crlf.txt"}, kExact));
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(contains(r.err, "cannot open input " + dir / "x\\r: No such file")) << r.err;
  // ESC, a byte that is no UTF-8, é (kept), U+202E (right-to-left
  // override), U+0085 (a C1 control) and an overlong '/' (C0 AF).
  const std::string odd = dir / "a\nb\x1b[1m\xff\xc3\xa9\xe2\x80\xae\xc2\x85\xc0\xaf";
  const std::string shown =
      dir / "a\\nb\\x1B[1m\\xFF\xc3\xa9\\xE2\\x80\\xAE\\xC2\\x85\\xC0\\xAF";
  r = run(with({"dedup", odd}, kExact));
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(cli_test::one_error_line(r.err)) << r.err;
  EXPECT_TRUE(contains(r.err, "cannot open input " + shown + ": No such file")) << r.err;
  cli_test::write_file(dir / "in.txt", "k\n");
  r = run(with({"dedup", dir / "in.txt", odd, "--skip-missing", "-q"}, kExact));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "warning: input " + shown + " does not exist")) << r.err;
  r = run({"build", dir / "in.txt", "-f", odd, "-q"});
  ASSERT_EQ(r.status, 0) << r.err;
  r = run({"info", odd});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "file          " + shown + "\n")) << r.out;
  r = run({"query", dir / "in.txt", "-f", odd + ".missing"});
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(contains(r.err, "cannot open filter file " + shown + ".missing: No such file"))
      << r.err;
}

TEST(CliFilesFrom, RecursiveReadsFilesInByteOrderAndFollowsNoLinkInside) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  const std::string d = dir / "d";
  for (const char* sub : {"", "/a", "/a.b", "/B"}) ASSERT_EQ(mkdir((d + sub).c_str(), 0755), 0);
  // Each file holds its own name: the output lists the files in read order.
  const std::vector<std::string> names = {"a/x", "a.b/y", "a.txt", "B/z", "Z", "b.txt", "\xc3\xa9.txt"};
  for (const std::string& name : names) cli_test::write_file(d + "/" + name, name + "\n");
  cli_test::write_file(dir / "outside.txt", "outside\n");
  ASSERT_EQ(symlink((dir / "outside.txt").c_str(), (d + "/link.txt").c_str()), 0);
  ASSERT_EQ(symlink(dir.path().c_str(), (d + "/loop").c_str()), 0);
  ASSERT_EQ(mkfifo((d + "/fifo").c_str(), 0644), 0);
  // Byte order of the paths: 'B' (0x42) < 'Z' < 'a'; "a.b/" < "a.txt" < "a/"
  // ('.' 0x2e < '/' 0x2f); bytes past 0x7f last.
  const std::string expected = "B/z\nZ\na.b/y\na.txt\na/x\nb.txt\n\xc3\xa9.txt\n";
  Result r = run(with({"dedup", "--recursive", d}, kExact));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, expected);
  // A link named as an input is followed, as any named path.
  r = run(with({"dedup", "-r", d + "/link.txt", d + "/a"}, kExact));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "outside\na/x\n");
  // Without --recursive the folder is refused, naming it, before any work.
  r = run(with({"dedup", d, "-o", dir / "out.txt"}, kExact));
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(cli_test::one_error_line(r.err)) << r.err;
  EXPECT_TRUE(contains(r.err, "input " + d + " is a folder; give --recursive")) << r.err;
  EXPECT_FALSE(cli_test::exists(dir / "out.txt"));
  // A list naming a folder is the same.
  cli_test::write_file(dir / "list", d + "\n");
  r = run(with({"dedup", "--files-from", dir / "list"}, kExact));
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(contains(r.err, "input " + d + " is a folder")) << r.err;
}

TEST(CliFilesFrom, SkipMissingWarnsPerFileAndCountsThem) {
  REQUIRE_GDEDUP_BIN();
  Files f;
  cli_test::write_file(f.dir / "list", f.path(1) + "\n" + f.dir / "gone1" + "\n" + f.path(2) +
                                           "\n" + f.dir / "gone2" + "\n");
  Result r = run({"dedup", "--files-from", f.dir / "list", "--capacity", "1M", "--fpr", "1e-9",
                  "-o", f.dir / "out.txt", "--stats", f.dir / "s.json"});
  ASSERT_EQ(r.status, 1);
  EXPECT_TRUE(contains(r.err, "cannot open input " + f.dir / "gone1: No such file")) << r.err;
  EXPECT_FALSE(cli_test::exists(f.dir / "out.txt"));
  r = run({"dedup", "--files-from", f.dir / "list", "--skip-missing", "--capacity", "1M", "--fpr",
           "1e-9", "-o", f.dir / "out.txt", "--stats", f.dir / "s.json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "gdedup: warning: input " + f.dir / "gone1" +
                                  " does not exist; left out (--skip-missing)"))
      << r.err;
  EXPECT_TRUE(contains(r.err, "gone2 does not exist")) << r.err;
  EXPECT_TRUE(contains(r.err, "; 2 missing inputs skipped")) << r.err;
  EXPECT_EQ(cli_test::read_file(f.dir / "out.txt"), dedup_of({f.texts[1], f.texts[2]}));
  const std::string stats = cli_test::read_file(f.dir / "s.json");
  EXPECT_TRUE(contains(stats, "\"inputs\": 2")) << stats;
  EXPECT_TRUE(contains(stats, "\"inputs_skipped\": 2")) << stats;
  // Nothing left at all is an error, not an empty success.
  cli_test::write_file(f.dir / "none", f.dir / "gone1\n");
  r = run(with({"dedup", "--files-from", f.dir / "none", "--skip-missing"}, kExact));
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(contains(r.err, "no input to read: the 1 input named is missing")) << r.err;
}

TEST(CliFilesFrom, BadListsAreRefusedBeforeAnyWork) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  cli_test::write_file(dir / "empty", "\n\n");
  cli_test::write_file(dir / "nul", std::string("a\0b\0", 4));
  cli_test::write_file(dir / "data", "x\n");
  cli_test::write_file(dir / "in.txt", dir / "data" + "\n");
  ASSERT_EQ(mkdir((dir / "folder").c_str(), 0755), 0);
  struct Case {
    std::vector<std::string> args;
    int status;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"--files-from", dir / "missing"}, 1,
       "cannot read the list of inputs --files-from " + dir / "missing" +
           ": No such file or directory."},
      {{"--files-from", dir / "folder"}, 2, "--files-from " + dir / "folder" + " is a folder"},
      {{"--files-from", dir / "empty"}, 2, "--files-from " + dir / "empty" + " names no input"},
      {{"--files-from", dir / "nul"}, 2, "holds NUL bytes, so its paths are not one per line; give -0"},
      {{"-0", dir / "in.txt"}, 2, "-0 has no effect without --files-from"},
      {{"--files-from", "-", "-"}, 2, "standard input is the list of inputs (--files-from -)"},
      {{"--files-from", dir / "in.txt", "--stats", dir / "in.txt"}, 2,
       "statistics file " + dir / "in.txt" + " is the same file as input"},
  };
  for (const Case& c : cases) {
    const Result r = run(with(with({"dedup"}, c.args), {"--capacity", "10", "-o", dir / "out"}));
    EXPECT_EQ(r.status, c.status) << c.message << ": " << r.err;
    EXPECT_TRUE(cli_test::one_error_line(r.err)) << r.err;
    EXPECT_TRUE(contains(r.err, c.message)) << "expected \"" << c.message << "\" in: " << r.err;
    EXPECT_FALSE(cli_test::exists(dir / "out"));
  }
}

// A list job stopped by a failing checkpoint write resumes, re-reading the
// same list, to the uninterrupted output.
TEST(CliFilesFrom, ResumesAListJob) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  std::string list;
  for (int i = 0; i < 40; ++i) {
    const std::string path = dir / ("s" + std::to_string(i));
    cli_test::write_file(path, make_file(100 + i, 10000, 200000));
    list += path + '\0';
  }
  cli_test::write_file(dir / "list", list);
  const std::vector<std::string> base = {"dedup", "-0", "--files-from", dir / "list", "--capacity",
                                         "1M", "--fpr", "0.01", "--batch", "20000", "-q"};
  const Result ref = run(with(base, {"-o", dir / "ref.txt"}));
  ASSERT_EQ(ref.status, 0) << ref.err;
  const auto job = with(base, {"-o", dir / "out.txt", "--checkpoint", dir / "ck",
                               "--checkpoint-every", "100K"});
  const Result stopped = cli_test::run_failing_write(dir / "ck", 2, job);
  ASSERT_EQ(stopped.status, 1) << stopped.err;
  ASSERT_TRUE(cli_test::exists(dir / "ck"));
  // Another list is another job.
  cli_test::write_file(dir / "other", dir / "s1" + '\0' + dir / "s0" + '\0');
  std::vector<std::string> other = with(job, {"--resume"});
  other[3] = dir / "other";
  Result r = run(other);
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(contains(r.err, "the input list differs: the checkpoint was written with 40 "
                              "inputs, this run has 2 inputs"))
      << r.err;
  // Resumed by several workers: the checkpoint's position is an ordered one.
  r = run(with(job, {"--resume", "--threads", "3"}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(cli_test::same_bytes(cli_test::read_file(dir / "out.txt"),
                                   cli_test::read_file(dir / "ref.txt")));
}

// 100,000 one-record files, through a list, with 64 descriptors allowed:
// one input open at a time (no --capacity: the size estimate opens them
// too), and the output is the exact one. In a tmpfs
// where there is one: creating and removing the files on a disk costs more
// than the job.
TEST(CliFilesFrom, OneHundredThousandTinyFilesWithFewDescriptors) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir(access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
  constexpr int kFiles = 100000;
  std::string list, all;
  std::mt19937_64 rng(5);
  for (int i = 0; i < kFiles; ++i) {
    if (i % 1000 == 0) {
      ASSERT_EQ(mkdir((dir / std::to_string(i / 1000)).c_str(), 0755), 0);
    }
    const std::string path = dir / (std::to_string(i / 1000) + "/" + std::to_string(i));
    // Every tenth file has no final newline: its record still ends there.
    std::string text = "k" + std::to_string(rng() % 60000) + (i % 10 ? "\n" : "");
    std::FILE* f = std::fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr) << path;
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
    list += path + "\n";
    all += text + (i % 10 ? "" : "\n");
  }
  cli_test::write_file(dir / "list", list);
  cli_test::RunSpec spec;
  spec.bin = "/bin/bash";
  spec.args = {"-c", "ulimit -n 64 && exec \"$0\" \"$@\"", cli_test::binary(), "dedup",
               "--files-from", dir / "list", "-o", dir / "out.txt", "--stats", dir / "s.json",
               "--progress", "--fpr", "1e-9", "-q"};
  const Result r = run(spec);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(cli_test::same_bytes(cli_test::read_file(dir / "out.txt"), dedup_of({all})));
  EXPECT_TRUE(contains(cli_test::read_file(dir / "s.json"), "\"inputs\": 100000"));
  // The progress line counts over all inputs and says which one it is at.
  EXPECT_TRUE(contains(r.err, " of 100,000")) << r.err.substr(0, 400);
}

}  // namespace
