// Library failures carry the kind a caller acts on (include/gdedup/error.h):
// a command line picks its advice from it, a binding its exception class. A
// sample of failures, each made for real, against the kind it must have.
// (Resumes that do not match their checkpoint: checkpoint_resume_test.cpp.)
#include <gtest/gtest.h>

#include <cerrno>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "file_util.h"
#include "fs/file_ops.h"
#include "gdedup/backend.h"
#include "gdedup/error.h"
#include "gdedup/filter.h"
#include "gdedup/filter_file.h"
#include "gdedup/filter_merge.h"
#include "gdedup/pipeline.h"
#include "gdedup/planner.h"

namespace gdedup {
namespace {

// The kind of the Error `work` throws; fails the test if it throws none.
ErrorKind kind_of(const std::function<void()>& work) {
  try {
    work();
  } catch (const Error& e) {
    std::cout << "  " << e.what() << "\n";
    return e.kind();
  }
  ADD_FAILURE() << "no Error was thrown";
  return ErrorKind::failure;
}

class ErrorKinds : public test::TempDirTest {
 protected:
  ErrorKinds() : TempDirTest("error_kinds") {}

  std::string write(const std::string& name, const std::string& bytes) const {
    std::ofstream(path(name), std::ios::binary) << bytes;
    return path(name);
  }

  // A dedup of `inputs` into out.txt on a small CPU filter.
  void dedup(const std::vector<std::string>& inputs) const {
    Filter filter(FilterParams{64, {256, 8}, kDefaultSeed});
    auto backend = make_cpu_backend(filter);
    PipelineOptions o;
    o.inputs = inputs;
    o.output = path("out.txt");
    run_pipeline(o, filter, *backend);
  }
};

TEST_F(ErrorKinds, MissingInputIsIo) {
  EXPECT_EQ(kind_of([&] { dedup({path("no-such-input.txt")}); }), ErrorKind::io);
}

TEST_F(ErrorKinds, DamagedGzipIsDamaged) {
  // A gzip header, then bytes that are no deflate stream.
  static const char kBad[] = "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xff\xff\xff\xff garbage";
  const std::string bad(kBad, sizeof kBad - 1);
  EXPECT_EQ(kind_of([&] { dedup({write("bad.gz", bad)}); }), ErrorKind::damaged);
}

TEST_F(ErrorKinds, LzipInputIsAnUnsupportedFormat) {
  const std::string lzip("LZIP\x01\x0c", 6);
  EXPECT_EQ(kind_of([&] { dedup({write("in.lz", lzip + std::string(64, '\0'))}); }),
            ErrorKind::unsupported_format);
}

// The disk under the output fails one kind of call, as a full or failing
// disk does.
class FailingDisk : public fs::Observer {
 public:
  FailingDisk(fs::Op op, int err) : op_(op), err_(err), previous_(fs::set_observer(this)) {}
  ~FailingDisk() override { fs::set_observer(previous_); }
  FailingDisk(const FailingDisk&) = delete;
  FailingDisk& operator=(const FailingDisk&) = delete;
  int before(fs::Op op, const std::string& name, size_t& bytes) override {
    if (op != op_ || name.find("out.txt") == std::string::npos) return 0;
    if (op == fs::Op::kWrite) bytes /= 2;  // part stored, then ENOSPC
    return err_;
  }

 private:
  fs::Op op_;
  int err_;
  fs::Observer* previous_;
};

TEST_F(ErrorKinds, FullOutputIsIo) {
  const std::string input = write("in.txt", "a\nb\nc\n");
  {
    const FailingDisk full(fs::Op::kWrite, ENOSPC);
    EXPECT_EQ(kind_of([&] { dedup({input}); }), ErrorKind::io);
  }
  {
    const FailingDisk failing_rename(fs::Op::kRename, EIO);
    EXPECT_EQ(kind_of([&] { dedup({input}); }), ErrorKind::io);
  }
  {
    const FailingDisk failing_sync(fs::Op::kSync, EIO);
    EXPECT_EQ(kind_of([&] { dedup({input}); }), ErrorKind::io);
  }
}

TEST_F(ErrorKinds, CorruptFilterFileIsDamaged) {
  Filter filter(FilterParams{64, {256, 8}, kDefaultSeed});
  save_filter(filter, path("f.gdf"));
  std::string bytes;
  {
    std::ifstream in(path("f.gdf"), std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  bytes[bytes.size() - 5] ^= 0x01;
  write("f.gdf", bytes);
  EXPECT_EQ(kind_of([&] { load_filter(path("f.gdf")); }), ErrorKind::damaged);
  write("f.gdf", bytes.substr(0, 40));
  EXPECT_EQ(kind_of([&] { load_filter(path("f.gdf")); }), ErrorKind::damaged);
  EXPECT_EQ(kind_of([&] { load_filter(path("no-such.gdf")); }), ErrorKind::io);
}

// Merging filters whose keys were made by other rules: the command line
// adds the flag that overrides it, which the library does not name.
TEST_F(ErrorKinds, MergingFiltersOfOtherKeyRulesIsAKeyRulesMismatch) {
  FilterFileInfo plain;
  plain.params = {FilterParams{64, {256, 8}, kDefaultSeed}};
  plain.counters = {FilterCounters{}};
  plain.rules.keys = KeyRules{};
  plain.version = kFilterFileVersion;
  FilterFileInfo normalized = plain;
  normalized.rules.keys->keys = KeyOptions::parse("whole", "tab", "url");
  EXPECT_EQ(kind_of([&] { merged_rules({plain, normalized}, {"a.gdf", "b.gdf"}, false); }),
            ErrorKind::key_rules_mismatch);
  EXPECT_NO_THROW(merged_rules({plain, normalized}, {"a.gdf", "b.gdf"}, true));
  try {
    merged_rules({plain, normalized}, {"a.gdf", "b.gdf"}, false);
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).find("--"), std::string::npos) << e.what();
  }
}

TEST_F(ErrorKinds, MemoryBeyondTheBudgetOrTheMachine) {
  // A budget that holds no block can never be planned for.
  EXPECT_EQ(kind_of([] { plan_for_memory(16, 1000); }), ErrorKind::invalid_argument);
  // The largest filter the format allows, 128 TiB, is more than any
  // process's address space: the allocation fails and says how much it
  // asked for.
  const FilterParams largest{(uint64_t{1} << 47) / 64, {512, 16}, kDefaultSeed};
  try {
    Filter filter(largest);
    ADD_FAILURE() << "allocated 128 TiB";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::out_of_memory) << e.what();
    EXPECT_EQ(e.needed(), largest.bytes());
  }
}

}  // namespace
}  // namespace gdedup
