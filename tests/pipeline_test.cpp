// The streaming driver through the library API, against an exact
// first-occurrence dedup computed here.
#include "gdedup/pipeline.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unordered_set>
#include <vector>

#include <gtest/gtest.h>

#include "gdedup/backend.h"
#include "gdedup/error.h"
#include "gdedup/filter.h"
#include "test_util.h"

namespace gdedup {
namespace {

class PipelineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/gdedup-pipeline-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }

  std::string write_file(const std::string& name, const std::string& bytes) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }
  static std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }

  std::string dir_;
};

// URLs with about 40% repeats, some lines without a key field.
std::vector<std::string> url_lines(size_t count, uint64_t seed) {
  test::Rng rng(seed);
  std::vector<std::string> lines;
  for (size_t i = 0; i < count; ++i) {
    const uint64_t id = rng.below(count * 6 / 10 + 1);
    lines.push_back("https://host" + std::to_string(id % 97) + ".example/p/" + std::to_string(id) +
                    "\t" + std::to_string(rng.below(5)));
  }
  return lines;
}

std::string join(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

std::string exact_dedup(const std::vector<std::string>& lines, bool keep_new) {
  std::unordered_set<std::string> seen;
  std::string out;
  for (const auto& l : lines) {
    const bool fresh = seen.insert(l).second;
    if (fresh == keep_new) out += l + "\n";
  }
  return out;
}

Filter big_filter() { return Filter(FilterParams{1 << 16, {512, 16}, kDefaultSeed}); }

TEST_F(PipelineTest, DedupEqualsExactDedupForAnyBatchSizeAndThreadCount) {
  const auto lines = url_lines(15000, 1);
  const std::string input = write_file("in.txt", join(lines));
  const std::string expected = exact_dedup(lines, true);
  for (uint64_t batch : {1ull, 7ull, 1000ull, 1000000ull}) {
    for (unsigned threads : {1u, 2u, 4u}) {
      Filter filter = big_filter();
      // Threads from 100 keys each, so that batches of 1,000 and more
      // really are split (the default waits for 16,384 keys per thread).
      auto backend = make_cpu_backend(filter, {threads, CpuKernel::kAuto, 100});
      PipelineOptions o;
      o.inputs = {input};
      o.output = dir_ + "/out.txt";
      o.batch_records = batch;
      const PipelineStats stats = run_pipeline(o, filter, *backend);
      EXPECT_EQ(read_file(o.output), expected) << "batch " << batch << " threads " << threads;
      EXPECT_EQ(stats.records, lines.size());
      EXPECT_EQ(stats.kept + stats.dropped, lines.size());
      EXPECT_EQ(stats.output_bytes, expected.size());
    }
  }
}

TEST_F(PipelineTest, DuplicatesModeWritesTheComplement) {
  const auto lines = url_lines(20000, 2);
  Filter filter = big_filter();
  auto backend = make_cpu_backend(filter);
  PipelineOptions o;
  o.inputs = {write_file("in.txt", join(lines))};
  o.output = dir_ + "/dups.txt";
  o.mode = Mode::kDuplicates;
  run_pipeline(o, filter, *backend);
  EXPECT_EQ(read_file(o.output), exact_dedup(lines, false));
}

TEST_F(PipelineTest, BuildThenQueryFindsExactlyTheBuiltKeys) {
  const auto lines = url_lines(20000, 3);
  const std::vector<std::string> first(lines.begin(), lines.begin() + 10000);
  Filter filter = big_filter();
  auto backend = make_cpu_backend(filter);
  PipelineOptions build;
  build.inputs = {write_file("first.txt", join(first))};
  build.mode = Mode::kBuild;
  const PipelineStats built = run_pipeline(build, filter, *backend);
  std::unordered_set<std::string> known(first.begin(), first.end());
  EXPECT_EQ(built.kept, known.size());

  PipelineOptions query;
  query.inputs = {write_file("all.txt", join(lines))};
  std::string present, absent;
  for (const auto& l : lines) (known.count(l) ? present : absent) += l + "\n";
  query.mode = Mode::kQueryPresent;
  query.output = dir_ + "/present.txt";
  run_pipeline(query, filter, *backend);
  EXPECT_EQ(read_file(query.output), present);
  query.mode = Mode::kQueryAbsent;
  query.output = dir_ + "/absent.txt";
  run_pipeline(query, filter, *backend);
  EXPECT_EQ(read_file(query.output), absent);
}

TEST_F(PipelineTest, KeyFieldSelectsWhatIsCompared) {
  const std::string input = write_file("in.tsv", "a\t1\nb\t1\nc\t2\nd\nb\t\n");
  Filter filter = big_filter();
  auto backend = make_cpu_backend(filter);
  PipelineOptions o;
  o.inputs = {input};
  o.output = dir_ + "/out.txt";
  o.keys = KeyOptions::parse("field:2");
  run_pipeline(o, filter, *backend);
  // "d" has no second field: its key is empty, like "b\t"'s.
  EXPECT_EQ(read_file(o.output), "a\t1\nc\t2\nd\n");
}

// NUL-separated records: the same keys as lines, NUL after each record
// written; a field delimiter equal to the separator is refused before the
// output is created.
TEST_F(PipelineTest, NulSeparatedRecordsAndTheirDelimiter) {
  const std::string input = write_file("in.z", std::string("a\n1\0b\n1\0c\n2\0a\n1", 11));
  Filter filter = big_filter();
  auto backend = make_cpu_backend(filter);
  PipelineOptions o;
  o.inputs = {input};
  o.output = dir_ + "/out.z";
  o.record_separator = '\0';
  o.keys = KeyOptions::parse("field:2", "\\x0a");
  run_pipeline(o, filter, *backend);
  EXPECT_EQ(read_file(o.output), std::string("a\n1\0c\n2\0", 8));
  o.output = dir_ + "/never.z";
  o.keys = KeyOptions::parse("field:2", "\\x00");
  EXPECT_THROW(run_pipeline(o, filter, *backend), UsageError);
  std::ifstream never(o.output);
  EXPECT_FALSE(never.good());
}

TEST_F(PipelineTest, U64FingerprintsPassThroughInTheirOwnFormat) {
  std::vector<uint64_t> fps = test::keys_with_duplicates(30000, 5000, 4);
  std::string bytes(reinterpret_cast<const char*>(fps.data()), fps.size() * 8);
  std::string expected;
  std::unordered_set<uint64_t> seen;
  for (uint64_t fp : fps) {
    if (seen.insert(fp).second) expected.append(reinterpret_cast<const char*>(&fp), 8);
  }
  Filter filter = big_filter();
  auto backend = make_cpu_backend(filter);
  PipelineOptions o;
  o.inputs = {write_file("a.u64", bytes.substr(0, 8 * 1001)), write_file("b.u64", bytes.substr(8 * 1001))};
  o.output = dir_ + "/out.u64";
  o.format = InputFormat::kU64;
  o.batch_records = 777;
  run_pipeline(o, filter, *backend);
  EXPECT_EQ(read_file(o.output), expected);

  o.inputs = {write_file("odd.u64", bytes.substr(0, 8 * 10 + 3))};
  try {
    run_pipeline(o, filter, *backend);
    FAIL() << "expected Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("83 bytes, 3 more than a multiple of 8"), std::string::npos) << e.what();
  }
}

// Outputs of several of the output writer's 2 MiB buffers, so that most
// writes are made on its thread: every mode, NUL separators and u64
// records still give exactly the oracle's bytes.
TEST_F(PipelineTest, EveryModeOverManyOutputBuffers) {
  const auto lines = url_lines(300000, 8);
  const std::string text = join(lines);
  ASSERT_GT(text.size(), size_t{8} << 20);
  const std::string input = write_file("in.txt", text);
  const auto run = [&](Mode mode, const std::string& in, Filter& filter, char separator) {
    auto backend = make_cpu_backend(filter);
    PipelineOptions o;
    o.inputs = {in};
    o.output = dir_ + "/out";
    o.mode = mode;
    o.record_separator = separator;
    const PipelineStats stats = run_pipeline(o, filter, *backend);
    const std::string got = read_file(o.output);
    EXPECT_EQ(stats.output_bytes, got.size());
    return got;
  };
  {
    Filter filter = big_filter();
    const std::string want = exact_dedup(lines, true);
    ASSERT_GT(want.size(), size_t{4} << 20);  // two buffers and more
    EXPECT_TRUE(run(Mode::kDedup, input, filter, '\n') == want);
  }
  {
    Filter filter = big_filter();
    EXPECT_TRUE(run(Mode::kDuplicates, input, filter, '\n') == exact_dedup(lines, false));
  }
  {
    // The same records NUL-separated: the same choice, NUL after each.
    std::string nul = text;
    std::replace(nul.begin(), nul.end(), '\n', '\0');
    std::string want = exact_dedup(lines, true);
    std::replace(want.begin(), want.end(), '\n', '\0');
    Filter filter = big_filter();
    EXPECT_TRUE(run(Mode::kDedup, write_file("in.z", nul), filter, '\0') == want);
  }
  {
    Filter filter = big_filter();
    const std::vector<std::string> first(lines.begin(), lines.begin() + lines.size() / 2);
    auto backend = make_cpu_backend(filter);
    PipelineOptions build;
    build.inputs = {write_file("first.txt", join(first))};
    build.mode = Mode::kBuild;
    run_pipeline(build, filter, *backend);
    const std::unordered_set<std::string> known(first.begin(), first.end());
    std::string present, absent;
    for (const auto& l : lines) (known.count(l) ? present : absent) += l + "\n";
    EXPECT_TRUE(run(Mode::kQueryPresent, input, filter, '\n') == present);
    EXPECT_TRUE(run(Mode::kQueryAbsent, input, filter, '\n') == absent);
  }
  {
    const std::vector<uint64_t> fps = test::keys_with_duplicates(1200000, 700000, 9);
    std::string want;
    std::unordered_set<uint64_t> seen;
    for (uint64_t fp : fps) {
      if (seen.insert(fp).second) want.append(reinterpret_cast<const char*>(&fp), 8);
    }
    Filter filter(FilterParams{1 << 19, {512, 16}, kDefaultSeed});  // no false positive
    auto backend = make_cpu_backend(filter);
    PipelineOptions o;
    o.inputs = {write_file("in.u64", std::string(reinterpret_cast<const char*>(fps.data()),
                                                 fps.size() * 8))};
    o.output = dir_ + "/out.u64";
    o.format = InputFormat::kU64;
    run_pipeline(o, filter, *backend);
    EXPECT_TRUE(read_file(o.output) == want);
  }
}

TEST_F(PipelineTest, DamagedInputLeavesTheOutputFileAsItWas) {
  const auto lines = url_lines(200000, 5);
  const std::string plain = write_file("in.txt", join(lines));
  ASSERT_EQ(std::system(("gzip -k -1 " + plain).c_str()), 0);
  const std::string gz = read_file(plain + ".gz");
  const std::string cut = write_file("cut.gz", gz.substr(0, gz.size() / 2));
  Filter filter = big_filter();
  auto backend = make_cpu_backend(filter);
  PipelineOptions o;
  o.inputs = {cut};
  o.output = write_file("out.txt", "the previous output\n");
  o.batch_records = 1000;  // many batches written before the damage
  try {
    run_pipeline(o, filter, *backend);
    FAIL() << "expected Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("offset"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("was left as it was before the job"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(read_file(o.output), "the previous output\n");
  for (const auto& e : std::filesystem::directory_iterator(dir_)) {
    EXPECT_EQ(e.path().filename().string().find("out.txt.tmp."), std::string::npos)
        << "left behind: " << e.path();
  }
}

TEST_F(PipelineTest, OverCapacityIsReportedOnce) {
  Filter filter = Filter::from_plan(plan_for_capacity(100, 1e-3));
  auto backend = make_cpu_backend(filter);
  PipelineOptions o;
  o.inputs = {write_file("in.txt", join(url_lines(5000, 6)))};
  o.output = dir_ + "/out.txt";
  o.batch_records = 50;
  int calls = 0;
  double fpr = 0;
  o.on_over_capacity = [&](uint64_t planned, double now) {
    ++calls;
    EXPECT_EQ(planned, 100u);
    fpr = now;
  };
  run_pipeline(o, filter, *backend);
  EXPECT_EQ(calls, 1);
  EXPECT_GT(fpr, 1e-3);
}

}  // namespace
}  // namespace gdedup
