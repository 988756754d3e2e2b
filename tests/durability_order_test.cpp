// The order of the calls that make files durable, watched through the
// fs::Observer: a filter, a checkpoint and the output each reach the disk
// (write, fsync) before the rename that makes them count, and the folder is
// synced after it. Dropping or reordering any of these steps fails here; so
// does a failed step that leaves a temporary file or touches the old file.
#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "fs/file_ops.h"
#include "gdedup/backend.h"
#include "gdedup/checkpoint.h"
#include "gdedup/error.h"
#include "gdedup/filter.h"
#include "gdedup/filter_file.h"
#include "gdedup/pipeline.h"

namespace gdedup {
namespace {

using fs::Op;

struct Event {
  Op op;
  std::string name;
  size_t bytes;
};

// Records every call in order (checkpoints are written on a thread of their
// own, hence the lock); can fail the nth call of one kind with an errno.
class Recorder : public fs::Observer {
 public:
  Recorder() { fs::set_observer(this); }
  ~Recorder() override { fs::set_observer(nullptr); }

  int before(Op op, const std::string& name, size_t& bytes) override {
    std::lock_guard<std::mutex> lock(mutex_);
    events_.push_back({op, name, bytes});
    if (op == fail_op_ && ++seen_ == fail_nth_) return fail_errno_;
    return 0;
  }
  void fail(Op op, int nth, int err) {
    fail_op_ = op;
    fail_nth_ = nth;
    fail_errno_ = err;
  }
  std::vector<Event> events() {
    std::lock_guard<std::mutex> lock(mutex_);
    return events_;
  }

 private:
  std::mutex mutex_;
  std::vector<Event> events_;
  Op fail_op_ = Op::kUnlink;
  int fail_nth_ = 0;
  int seen_ = 0;
  int fail_errno_ = 0;
};

const char* op_name(Op op) {
  switch (op) {
    case Op::kCreate: return "create";
    case Op::kWrite: return "write";
    case Op::kSync: return "sync";
    case Op::kTruncate: return "truncate";
    case Op::kRename: return "rename";
    case Op::kSyncFolder: return "sync-folder";
    case Op::kUnlink: return "unlink";
    case Op::kMap: return "map";
  }
  return "?";
}

// "create T, write T, sync T, rename P, sync-folder D" with the temporary
// file's name shown as T, runs of writes as one.
std::string replacement_trace(const std::vector<Event>& events, const std::string& target) {
  std::string trace;
  Op last = Op::kUnlink;
  for (const Event& e : events) {
    std::string who;
    if (e.name.rfind(target + ".tmp.", 0) == 0) who = "T";
    else if (e.name == target) who = "P";
    else if (e.name == fs::containing_folder(target)) who = "D";
    else continue;
    if (e.op == Op::kWrite && last == Op::kWrite) continue;
    last = e.op;
    trace += std::string(trace.empty() ? "" : ", ") + op_name(e.op) + " " + who;
  }
  return trace;
}

class DurabilityOrder : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/gdedup-durability-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }

  std::vector<std::string> files() const {
    std::vector<std::string> names;
    DIR* d = ::opendir(dir_.c_str());
    while (dirent* e = ::readdir(d)) {
      if (e->d_name[0] != '.') names.push_back(e->d_name);
    }
    ::closedir(d);
    return names;
  }
  static std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }

  std::string dir_;
};

Filter small_filter(uint64_t keys) {
  Filter f(FilterParams{64, {512, 16}, kDefaultSeed});
  auto backend = make_cpu_backend(f);
  std::vector<uint64_t> fps;
  for (uint64_t i = 0; i < keys; ++i) fps.push_back(i * 0x9E3779B97F4A7C15ull);
  backend->add(fps.data(), fps.size());
  backend->sync_to_host();
  return f;
}

const char* kReplacementOrder = "create T, write T, sync T, rename P, sync-folder D";

TEST_F(DurabilityOrder, AFilterIsWrittenAndSyncedBeforeItsRename) {
  const std::string path = dir_ + "/F.gdf";
  Recorder recorder;
  save_filter(small_filter(10), path);
  EXPECT_EQ(replacement_trace(recorder.events(), path), kReplacementOrder);
  EXPECT_EQ(files(), std::vector<std::string>{"F.gdf"});
}

TEST_F(DurabilityOrder, ACheckpointIsWrittenAndSyncedBeforeItsRename) {
  const std::string path = dir_ + "/run.ck";
  Recorder recorder;
  save_checkpoint(small_filter(10), ResumeState{}, path);
  EXPECT_EQ(replacement_trace(recorder.events(), path), kReplacementOrder);
  EXPECT_EQ(files(), std::vector<std::string>{"run.ck"});
}

TEST_F(DurabilityOrder, AFailedStepLeavesTheOldFilterAndNoTemporaryFile) {
  const std::string path = dir_ + "/F.gdf";
  save_filter(small_filter(5), path);
  const std::string old = slurp(path);
  for (Op op : {Op::kCreate, Op::kWrite, Op::kSync, Op::kRename}) {
    for (int nth : {1, 2}) {
      if (op != Op::kWrite && nth > 1) continue;
      Recorder recorder;
      recorder.fail(op, nth, EIO);
      EXPECT_THROW(save_filter(small_filter(50), path), Error) << op_name(op);
      EXPECT_EQ(slurp(path), old) << op_name(op);
      EXPECT_EQ(files(), std::vector<std::string>{"F.gdf"}) << op_name(op);
    }
  }
}

TEST_F(DurabilityOrder, AFailedFolderSyncIsReportedWithTheNewFileInPlace) {
  const std::string path = dir_ + "/F.gdf";
  Recorder recorder;
  recorder.fail(Op::kSyncFolder, 1, EIO);
  try {
    save_filter(small_filter(5), path);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("may not survive a crash"), std::string::npos)
        << e.what();
  }
  EXPECT_NO_THROW(load_filter(path));
}

// Each checkpoint relies on the output bytes it counts: they must have been
// written and fsynced before the checkpoint's rename. `records` lines of
// which `distinct` differ, in batches of `batch`, a checkpoint every
// `every` records.
void expect_output_synced_before_each_checkpoint(const std::string& dir, int records,
                                                 int distinct, const std::string& prefix,
                                                 uint64_t batch, uint64_t every) {
  std::string text;
  for (int i = 0; i < records; ++i) text += prefix + std::to_string(i % distinct) + "\n";
  const std::string input = dir + "/in.txt";
  const std::string output = dir + "/out.txt";
  const std::string checkpoint = dir + "/run.ck";
  std::ofstream(input, std::ios::binary) << text;

  const uint64_t blocks = std::max<uint64_t>(256, static_cast<uint64_t>(distinct) / 16);
  Filter filter(FilterParams{blocks, {512, 16}, kDefaultSeed});
  auto backend = make_cpu_backend(filter);
  PipelineOptions options;
  options.inputs = {input};
  options.output = output;
  options.batch_records = batch;
  options.checkpoint = checkpoint;
  options.checkpoint_every_seconds = 0;
  options.checkpoint_every_records = every;
  options.keep_checkpoint = true;  // the last one stays, to be read below
  Recorder recorder;
  run_pipeline(options, filter, *backend);
  const std::vector<Event> events = recorder.events();
  fs::set_observer(nullptr);

  // The output is written to its temporary file until the run completes.
  const auto is_output_temp = [&](const std::string& name) {
    return name.rfind(output + ".tmp.", 0) == 0;
  };
  uint64_t written = 0;        // output bytes handed to the kernel so far
  uint64_t synced = 0;         // of which fsynced
  uint64_t synced_at_last = 0; // synced when the last checkpoint was renamed
  int renames = 0;
  bool temp_synced = false;
  uint64_t synced_at_output_rename = 0;
  int output_renames = 0;
  bool folder_synced_after = false;
  for (const Event& e : events) {
    if (is_output_temp(e.name) && e.op == Op::kWrite) written += e.bytes;
    if (is_output_temp(e.name) && e.op == Op::kSync) synced = written;
    if (e.name.rfind(checkpoint + ".tmp.", 0) == 0 && e.op == Op::kSync) temp_synced = true;
    if (e.name == checkpoint && e.op == Op::kRename) {
      EXPECT_TRUE(temp_synced) << "checkpoint " << renames + 1 << " renamed before its fsync";
      EXPECT_EQ(output_renames, 0) << "a checkpoint was written after the output was renamed";
      temp_synced = false;
      synced_at_last = synced;
      ++renames;
    }
    if (e.name == output && e.op == Op::kRename) {
      synced_at_output_rename = synced;
      ++output_renames;
    }
    if (output_renames > 0 && e.name == dir && e.op == Op::kSyncFolder) {
      folder_synced_after = true;
    }
  }
  EXPECT_GE(renames, 5);
  const ResumeState state = read_checkpoint_state(checkpoint);
  EXPECT_GT(state.output_offset, 0u);
  // The offset is where the checkpoint's kept records end in the output,
  // and the checksum is theirs: nothing was still in flight.
  std::ifstream out_file(output, std::ios::binary);
  const std::string out_text{std::istreambuf_iterator<char>(out_file),
                             std::istreambuf_iterator<char>()};
  ASSERT_GE(out_text.size(), state.output_offset);
  EXPECT_EQ(static_cast<uint64_t>(std::count(out_text.begin(),
                                             out_text.begin() + state.output_offset, '\n')),
            state.kept);
  EXPECT_EQ(state.output_checksum, XXH3_64bits(out_text.data(), state.output_offset));
  EXPECT_GE(synced_at_last, state.output_offset)
      << "the last checkpoint counts output bytes that were not fsynced before it";
  EXPECT_EQ(state.output_temporary.rfind(output + ".tmp.", 0), 0u) << state.output_temporary;
  EXPECT_EQ(output_renames, 1);
  EXPECT_EQ(synced_at_output_rename, written) << "the output was renamed before its fsync";
  EXPECT_TRUE(folder_synced_after) << "the folder was not fsynced after the output's rename";
}

TEST_F(DurabilityOrder, TheOutputIsSyncedUpToTheOffsetBeforeEachCheckpoint) {
  expect_output_synced_before_each_checkpoint(dir_, 5000, 3700, "https://example.org/", 300,
                                              900);
}

// An output of many 2 MiB buffers: at each checkpoint some are in flight on
// the output writer's thread, and the flush must wait for them.
TEST_F(DurabilityOrder, BuffersInFlightAreSyncedBeforeEachCheckpoint) {
  expect_output_synced_before_each_checkpoint(
      dir_, 400000, 300000, "https://example.org/a/longer/path/to/page/", 16384, 65536);
}

}  // namespace
}  // namespace gdedup
