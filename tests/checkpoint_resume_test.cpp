// Checkpoints and resume through run_pipeline, in one process: runs stopped
// at many points and resumed give the uninterrupted output and filter; every
// refusal names what is wrong; a failed checkpoint write stops the run and
// leaves a checkpoint that resumes correctly.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gdedup/backend.h"
#include "gdedup/checkpoint.h"
#include "gdedup/error.h"
#include "gdedup/filter.h"
#include "gdedup/layered_filter.h"
#include "gdedup/pipeline.h"
#include "failing_replacement.h"
#include "file_util.h"
#include "test_util.h"

namespace gdedup {
namespace {

namespace fs = std::filesystem;

const FilterParams kParams{1 << 12, {512, 16}, kDefaultSeed};

class CheckpointResumeTest : public test::TempDirTest {
 protected:
  CheckpointResumeTest() : TempDirTest("gdedup_resume") {}
  // A dedup of `count` URLs to out.txt in batches of 1,000, checkpointed to ck.
  PipelineOptions url_job(size_t count, uint64_t seed);
  std::string write_file(const std::string& name, const std::string& bytes) {
    std::ofstream(path(name), std::ios::binary) << bytes;
    return path(name);
  }
};

std::string read_file(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string url_text(size_t count, uint64_t seed) {
  test::Rng rng(seed);
  std::string s;
  for (size_t i = 0; i < count; ++i) {
    s += "https://h" + std::to_string(rng.below(50)) + ".example/" +
         std::to_string(rng.below(count / 2 + 1)) + "\n";
  }
  return s;
}

std::string filter_bytes(const Filter& f) {
  return std::string(reinterpret_cast<const char*>(f.words()), f.params().bytes()) + "/" +
         std::to_string(f.counters().insertions);
}

struct Result {
  std::string output;
  std::string filter;
  PipelineStats stats;
};

Result uninterrupted(PipelineOptions o) {
  o.checkpoint.clear();
  Filter filter(kParams);
  auto backend = make_cpu_backend(filter);
  Result r;
  r.stats = run_pipeline(o, filter, *backend);
  r.output = o.mode == Mode::kBuild ? "" : read_file(o.output);
  r.filter = filter_bytes(filter);
  return r;
}

// Runs `o` from the start, or from its checkpoint when one exists, stopping
// after `stop_after` batches (0: never). Returns the stats.
PipelineStats run_once(PipelineOptions o, uint64_t stop_after, Filter* keep = nullptr) {
  std::atomic<bool> stop{false};
  uint64_t batches = 0;
  o.stop = &stop;
  o.on_progress = [&](const Progress&) {
    if (stop_after > 0 && ++batches >= stop_after) stop = true;
  };
  if (fs::exists(o.checkpoint)) {
    Checkpoint ck = load_checkpoint(o.checkpoint);
    auto backend = make_cpu_backend(ck.filter, {2});
    o.resume = &ck.state;
    PipelineStats s = run_pipeline(o, ck.filter, *backend);
    if (keep) *keep = std::move(ck.filter);
    return s;
  }
  Filter filter(kParams);
  auto backend = make_cpu_backend(filter);
  PipelineStats s = run_pipeline(o, filter, *backend);
  if (keep) *keep = std::move(filter);
  return s;
}

TEST_F(CheckpointResumeTest, StoppedAndResumedRunsEqualAnUninterruptedOne) {
  const std::string text = url_text(30000, 1);
  ASSERT_EQ(std::system(("printf '%s' '" + text.substr(0, 20000) + "' | gzip -1 > " +
                         path("a.gz"))
                            .c_str()),
            0);
  PipelineOptions o;
  o.inputs = {path("a.gz"), write_file("b.txt", text.substr(20000) + "no-newline-at-end"),
              write_file("c.txt", text.substr(0, 5000))};
  o.output = path("out.txt");
  o.batch_records = 1000;
  o.checkpoint = path("ck");
  for (Mode mode : {Mode::kDedup, Mode::kDuplicates, Mode::kBuild}) {
    o.mode = mode;
    const Result want = uninterrupted(o);
    for (uint64_t every : {1u, 3u, 7u}) {
      fs::remove(o.checkpoint);
      int runs = 0;
      Filter filter(kParams);
      for (;;) {
        ++runs;
        const PipelineStats s = run_once(o, every, &filter);
        if (!s.interrupted) {
          EXPECT_EQ(s.records, want.stats.records);
          EXPECT_EQ(s.kept, want.stats.kept);
          EXPECT_EQ(s.dropped, want.stats.dropped);
          EXPECT_EQ(s.output_bytes, want.stats.output_bytes);
          break;
        }
        ASSERT_EQ(s.checkpoints, 1u);
        ASSERT_LT(runs, 200);
      }
      EXPECT_GT(runs, 3);
      if (mode != Mode::kBuild) {
        EXPECT_EQ(read_file(o.output), want.output);
      }
      EXPECT_EQ(filter_bytes(filter), want.filter);
      EXPECT_FALSE(fs::exists(o.checkpoint)) << "a completed run removes its checkpoint";
    }
  }
}

// JSON Lines with records that lack the key, dropped: a resumed run counts
// the records without their key before its checkpoint too, and writes what
// the uninterrupted run writes.
TEST_F(CheckpointResumeTest, RecordsWithoutTheirKeyAreCountedAcrossAResume) {
  std::string text;
  for (int i = 0; i < 6000; ++i) {
    text += i % 7 == 0 ? "{\"other\":1}\n" : "{\"url\":\"u" + std::to_string(i % 2500) + "\"}\n";
  }
  PipelineOptions o;
  o.inputs = {write_file("a.jsonl", text)};
  o.output = path("out.txt");
  o.batch_records = 500;
  o.checkpoint = path("ck");
  o.keys = KeyOptions::parse("json:url", "tab", "none");
  o.missing_key = keys::MissingKey::kDrop;
  const Result want = uninterrupted(o);
  ASSERT_EQ(want.stats.missing_keys, 858u);
  PipelineStats s;
  int runs = 0;
  do {
    s = run_once(o, 3);
    ASSERT_LT(++runs, 100);
  } while (s.interrupted);
  EXPECT_GT(runs, 2);
  EXPECT_EQ(s.missing_keys, want.stats.missing_keys);
  EXPECT_EQ(s.kept, want.stats.kept);
  EXPECT_EQ(read_file(o.output), want.output);
}

TEST_F(CheckpointResumeTest, U64InputResumes) {
  const std::vector<uint64_t> fps = test::keys_with_duplicates(20000, 8000, 3);
  const std::string bytes(reinterpret_cast<const char*>(fps.data()), fps.size() * 8);
  PipelineOptions o;
  o.inputs = {write_file("a.u64", bytes.substr(0, 8 * 3001)),
              write_file("b.u64", bytes.substr(8 * 3001))};
  o.format = InputFormat::kU64;
  o.output = path("out.u64");
  o.batch_records = 1000;
  o.checkpoint = path("ck");
  const Result want = uninterrupted(o);
  Filter filter(kParams);
  while (run_once(o, 2, &filter).interrupted) {
  }
  EXPECT_EQ(read_file(o.output), want.output);
  EXPECT_EQ(filter_bytes(filter), want.filter);
}

TEST_F(CheckpointResumeTest, RecordIntervalWritesCheckpointsBetweenBatches) {
  PipelineOptions o;
  o.inputs = {write_file("in.txt", url_text(20000, 2))};
  o.output = path("out.txt");
  o.batch_records = 1000;
  o.checkpoint = path("ck");
  o.checkpoint_every_seconds = 0;
  o.checkpoint_every_records = 5000;
  const PipelineStats s = run_once(o, 0);
  // After batches 5, 10, 15 and 20: a record interval is never skipped.
  EXPECT_EQ(s.checkpoints, 4u);
  EXPECT_FALSE(fs::exists(o.checkpoint));
}

// ---------------------------------------------------------------- refusals

class CheckpointRefusalTest : public CheckpointResumeTest {
 protected:
  void SetUp() override {
    CheckpointResumeTest::SetUp();
    o_.inputs = {write_file("a.txt", url_text(10000, 4)), write_file("b.txt", url_text(500, 5))};
    o_.output = path("out.txt");
    o_.batch_records = 1000;
    o_.checkpoint = path("ck");
    o_.keys = KeyOptions::parse("whole", "tab", "lowercase-host");
    ASSERT_TRUE(run_once(o_, 3).interrupted);
    ASSERT_TRUE(fs::exists(o_.checkpoint));
  }

  // The message of the Error a resume with `o` throws, or "". Every
  // refusal is of kind resume_mismatch.
  std::string resume_error(const PipelineOptions& o) {
    Checkpoint ck = load_checkpoint(o_.checkpoint);
    auto backend = make_cpu_backend(ck.filter);
    PipelineOptions r = o;
    r.resume = &ck.state;
    try {
      run_pipeline(r, ck.filter, *backend);
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::resume_mismatch) << e.what();
      return e.what();
    }
    return "";
  }

  PipelineOptions o_;
};

TEST_F(CheckpointRefusalTest, EachOptionThatDiffersIsNamed) {
  const std::string out_before = read_file(o_.output);
  auto expect_named = [&](PipelineOptions o, const std::string& option) {
    const std::string message = resume_error(o);
    EXPECT_NE(message.find("the " + option + " option differs"), std::string::npos)
        << option << ": " << message;
    EXPECT_NE(message.find(o_.checkpoint), std::string::npos) << message;
  };
  PipelineOptions o = o_;
  o.mode = Mode::kDuplicates;
  expect_named(o, "mode");
  o = o_;
  o.keys.key = keys::KeySpec::nth_field(1);
  expect_named(o, "key");
  o = o_;
  o.keys.delimiter = ',';
  expect_named(o, "delimiter");
  o = o_;
  o.keys.normalize = {};
  expect_named(o, "normalize");
  o = o_;
  o.format = InputFormat::kU64;
  expect_named(o, "input format");
  o = o_;
  o.missing_key = keys::MissingKey::kDrop;
  expect_named(o, "missing-key policy");
  o = o_;
  o.strict_json = true;
  expect_named(o, "strict JSON");
  o = o_;
  o.output = path("other.txt");
  expect_named(o, "output");
  // The input list, named so.
  auto expect_list = [&](PipelineOptions o, const std::string& what) {
    const std::string message = resume_error(o);
    EXPECT_NE(message.find("the input list differs: the checkpoint was written with " + what),
              std::string::npos)
        << message;
    EXPECT_NE(message.find(o_.checkpoint), std::string::npos) << message;
  };
  o = o_;
  o.inputs.pop_back();
  expect_list(o, std::to_string(o_.inputs.size()) + " inputs, this run has " +
                     std::to_string(o.inputs.size()));
  o = o_;
  std::swap(o.inputs[0], o.inputs[1]);
  expect_list(o, "input 1 \"" + o_.inputs[0] + "\", this run has \"" + o_.inputs[1] + "\"");
  EXPECT_EQ(read_file(o_.output), out_before) << "a refused resume leaves the output alone";
  // The resume that matches still works after all of those.
  EXPECT_EQ(resume_error(o_), "");
}

TEST_F(CheckpointRefusalTest, FilterParamsThatDifferAreNamed) {
  const ResumeState state = read_checkpoint_state(o_.checkpoint);
  Filter other(FilterParams{kParams.num_blocks, kParams.layout, 12345});
  auto backend = make_cpu_backend(other);
  PipelineOptions r = o_;
  r.resume = &state;
  try {
    run_pipeline(r, other, *backend);
    FAIL() << "resumed with another filter";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("filter seed differs"), std::string::npos) << e.what();
    EXPECT_EQ(e.kind(), ErrorKind::resume_mismatch);
  }
}

TEST_F(CheckpointRefusalTest, ChangedInputIsRefusedNamingIt) {
  const std::string b = o_.inputs[1];
  struct stat st {};
  ASSERT_EQ(::stat(b.c_str(), &st), 0);
  const std::string original = read_file(b);

  // Same size, same modification time, other bytes: only the sample shows it.
  std::string changed = original;
  changed[changed.size() / 2] ^= 1;
  write_file("b.txt", changed);
  const timespec times[2] = {st.st_atim, st.st_mtim};
  ASSERT_EQ(::utimensat(AT_FDCWD, b.c_str(), times, 0), 0);
  std::string message = resume_error(o_);
  EXPECT_NE(message.find("input 2 (" + b + ") has changed"), std::string::npos) << message;
  EXPECT_NE(message.find("content differs"), std::string::npos) << message;

  write_file("b.txt", original + "x\n");
  message = resume_error(o_);
  EXPECT_NE(message.find("its size was"), std::string::npos) << message;

  write_file("b.txt", original);  // same bytes, new time
  message = resume_error(o_);
  EXPECT_NE(message.find("modification time"), std::string::npos) << message;

  ASSERT_EQ(::utimensat(AT_FDCWD, b.c_str(), times, 0), 0);
  EXPECT_EQ(resume_error(o_), "");
}

TEST_F(CheckpointRefusalTest, OutputShorterThanTheSavedOffsetIsRefused) {
  const ResumeState state = read_checkpoint_state(o_.checkpoint);
  const uint64_t saved = state.output_offset;
  ASSERT_GT(saved, 10u);
  ASSERT_EQ(::truncate(state.output_temporary.c_str(), static_cast<off_t>(saved - 10)), 0);
  const std::string message = resume_error(o_);
  EXPECT_NE(message.find("cannot resume output " + state.output_temporary), std::string::npos)
      << message;
  EXPECT_NE(message.find("fewer than the " + std::to_string(saved)), std::string::npos)
      << message;
}

TEST_F(CheckpointRefusalTest, DamagedCheckpointIsRefusedAndNeverUsed) {
  std::string bytes = read_file(o_.checkpoint);
  bytes[5000] ^= 0x10;
  write_file("ck", bytes);
  try {
    load_checkpoint(o_.checkpoint);
    FAIL() << "loaded a damaged checkpoint";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("is damaged"), std::string::npos) << e.what();
  }
  write_file("ck", bytes.substr(0, bytes.size() - 1));
  EXPECT_THROW(load_checkpoint(o_.checkpoint), Error);
}

TEST_F(CheckpointResumeTest, StreamsAndStandardOutputAreRefusedUpFront) {
  Filter filter(kParams);
  auto backend = make_cpu_backend(filter);
  PipelineOptions o;
  o.inputs = {"-"};
  o.output = path("out.txt");
  o.checkpoint = path("ck");
  try {
    run_pipeline(o, filter, *backend);
    FAIL() << "checkpointed standard input";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot checkpoint a run that reads standard input"),
              std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(fs::exists(o.output)) << "refused before the output was created";
  o.inputs = {write_file("in.txt", "a\n")};
  o.output = "-";
  try {
    run_pipeline(o, filter, *backend);
    FAIL() << "checkpointed standard output";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("standard output cannot be cut back"),
              std::string::npos)
        << e.what();
  }
  o.output = "/dev/null";
  try {
    run_pipeline(o, filter, *backend);
    FAIL() << "checkpointed an output that is not a regular file";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("/dev/null is not a regular file"), std::string::npos)
        << e.what();
  }
}

TEST_F(CheckpointResumeTest, ReplayableStandardInputResumes) {
  const std::string text = url_text(8000, 9);
  const std::string file = write_file("in.txt", text);
  PipelineOptions o;
  o.inputs = {file};
  o.output = path("out.txt");
  const std::string want = uninterrupted(o).output;
  o.inputs = {"-"};
  o.batch_records = 1000;
  o.checkpoint = path("ck");
  o.replayable_stdin = true;
  const int saved_stdin = ::dup(0);
  bool interrupted = true;
  for (int runs = 0; interrupted && runs < 100; ++runs) {
    ASSERT_NE(std::freopen(file.c_str(), "rb", stdin), nullptr);
    interrupted = run_once(o, 3).interrupted;
  }
  ::dup2(saved_stdin, 0);
  ::close(saved_stdin);
  EXPECT_FALSE(interrupted);
  EXPECT_EQ(read_file(o.output), want);
}

// ---------------------------------------------------------------- failing writes

TEST_F(CheckpointResumeTest, FailingCheckpointWriteStopsTheRunAndTheLastOneResumes) {
  PipelineOptions o;
  o.inputs = {write_file("in.txt", url_text(40000, 6))};
  o.output = path("out.txt");
  o.batch_records = 1000;
  o.checkpoint = path("ck");
  const Result want = uninterrupted(o);
  o.checkpoint_every_seconds = 0;
  o.checkpoint_every_records = 1;  // one after every batch

  try {
    const test::FailingReplacement third_write(o.checkpoint, 3);
    run_once(o, 0);
    FAIL() << "the run went on after a failed checkpoint";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("checkpoint failed: cannot write checkpoint " + o.checkpoint),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("The job stopped"), std::string::npos) << message;
    EXPECT_NE(message.find("the previous checkpoint, at record "), std::string::npos) << message;
    EXPECT_NE(message.find("is intact"), std::string::npos) << message;
  }
  const ResumeState state = read_checkpoint_state(o.checkpoint);
  EXPECT_GT(state.records, 0u);
  EXPECT_LT(state.records, 40000u);
  EXPECT_FALSE(fs::exists(o.checkpoint + ".tmp"));

  Filter filter(kParams);
  EXPECT_FALSE(run_once(o, 0, &filter).interrupted);
  EXPECT_EQ(read_file(o.output), want.output);
  EXPECT_EQ(filter_bytes(filter), want.filter);
}

TEST_F(CheckpointResumeTest, FailingFirstCheckpointSaysNoneExists) {
  PipelineOptions o;
  o.inputs = {write_file("in.txt", url_text(5000, 7))};
  o.output = path("out.txt");
  o.batch_records = 1000;
  o.checkpoint = path("ck");
  o.checkpoint_every_records = 1;
  try {
    const test::FailingReplacement first_write(o.checkpoint, 1);
    run_once(o, 0);
    FAIL() << "the run went on after a failed checkpoint";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no earlier checkpoint of this run exists"),
              std::string::npos)
        << e.what();
    // No checkpoint names the output's temporary file: it goes, and the
    // message does not send the user to it.
    EXPECT_NE(std::string(e.what()).find("now removed"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find("which the checkpoint names"), std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(fs::exists(o.checkpoint));
  EXPECT_FALSE(fs::exists(o.output));
  for (const auto& entry : fs::directory_iterator(dir_)) {
    EXPECT_EQ(entry.path().filename().string().rfind("out.txt", 0), std::string::npos)
        << entry.path() << " was left behind";
  }
}

// ------------------------------------------------- a filter that grows

PipelineOptions CheckpointResumeTest::url_job(size_t count, uint64_t seed) {
  PipelineOptions o;
  o.inputs = {write_file("in.txt", url_text(count, seed))};
  o.output = path("out.txt");
  o.batch_records = 1000;
  o.checkpoint = path("ck");
  return o;
}

BackendMaker cpu_layers(unsigned threads) {
  return [threads](Filter& layer) {
    CpuOptions options;
    options.threads = threads;
    return make_cpu_backend(layer, options);
  };
}

// From a 1,024-key first layer at 1e-2: six layers by the end of the input
// below, and false positives that must agree too.
GrowthRule small_growth() {
  GrowthRule rule;
  rule.first_capacity = 1024;
  rule.target_fpr = 1e-2;
  return rule;
}

std::string layers_bytes(LayeredFilter& f) {
  f.sync_to_host();
  std::string bytes;
  for (size_t i = 0; i < f.layer_count(); ++i) bytes += filter_bytes(f.layer(i)) + "|";
  return bytes;
}

// Runs `o` on a new growing filter, or from its checkpoint when one exists,
// stopping after `stop_after` batches; the layers' bytes go to `layers`.
PipelineStats run_growing_once(PipelineOptions o, uint64_t stop_after, std::string& layers) {
  std::atomic<bool> stop{false};
  uint64_t batches = 0;
  o.stop = &stop;
  o.on_progress = [&](const Progress&) {
    if (++batches >= stop_after) stop = true;
  };
  std::optional<Checkpoint> ck;
  std::unique_ptr<LayeredFilter> filter;
  if (fs::exists(o.checkpoint)) {
    ck = load_checkpoint(o.checkpoint);
    filter = resume_growing_filter(*ck, cpu_layers(2));
    o.resume = &ck->state;
  } else {
    filter = std::make_unique<LayeredFilter>(small_growth(), kDefaultSeed, cpu_layers(1));
  }
  const PipelineStats s = run_pipeline(o, *filter);
  layers = layers_bytes(*filter);
  return s;
}

TEST_F(CheckpointResumeTest, AGrowingFilterStoppedAndResumedEqualsAnUninterruptedOne) {
  PipelineOptions o = url_job(60000, 21);
  o.checkpoint.clear();
  LayeredFilter whole(small_growth(), kDefaultSeed, cpu_layers(1));
  run_pipeline(o, whole);
  ASSERT_EQ(whole.layer_count(), 6u);
  const std::string want_output = read_file(o.output);
  const std::string want_layers = layers_bytes(whole);
  o.checkpoint = path("ck");
  for (uint64_t every : {1u, 4u, 13u}) {
    SCOPED_TRACE("stopped every " + std::to_string(every) + " batches");
    fs::remove(o.checkpoint);
    fs::remove(o.output);
    int runs = 0;
    std::string layers;
    while (run_growing_once(o, every, layers).interrupted) ASSERT_LT(++runs, 100);
    EXPECT_GE(runs, 60 / static_cast<int>(every) - 1);
    EXPECT_TRUE(read_file(o.output) == want_output);
    EXPECT_TRUE(layers == want_layers);
    EXPECT_FALSE(fs::exists(o.checkpoint));
  }
}

std::string resume_error(const PipelineOptions& o, const ResumeState& state, LayeredFilter& f) {
  PipelineOptions resumed = o;
  resumed.resume = &state;
  try {
    run_pipeline(resumed, f);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST_F(CheckpointResumeTest, AGrowingCheckpointNeedsItsOwnFilter) {
  const PipelineOptions o = url_job(20000, 22);
  std::string layers;
  ASSERT_TRUE(run_growing_once(o, 8, layers).interrupted);
  const Checkpoint ck = load_checkpoint(o.checkpoint);
  ASSERT_TRUE(ck.state.growth.has_value());
  ASSERT_GE(ck.later_layers.size(), 2u);

  GrowthRule other = small_growth();
  other.first_capacity = 2048;
  LayeredFilter wider(other, kDefaultSeed, cpu_layers(1));
  EXPECT_NE(resume_error(o, ck.state, wider).find("first layer differs"), std::string::npos);
  LayeredFilter fresh(small_growth(), kDefaultSeed, cpu_layers(1));
  EXPECT_NE(resume_error(o, ck.state, fresh).find("it was offered 0 keys, the checkpoint's 8000"),
            std::string::npos)
      << resume_error(o, ck.state, fresh);
  Checkpoint again = load_checkpoint(o.checkpoint);
  auto backend = make_cpu_backend(again.filter);
  PipelineOptions fixed = o;
  fixed.resume = &again.state;
  try {
    run_pipeline(fixed, again.filter, *backend);
    FAIL() << "a growing checkpoint resumed with its first layer alone";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("the checkpoint has a filter that grows, this run "
                                         "asks for a fixed filter"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace gdedup
