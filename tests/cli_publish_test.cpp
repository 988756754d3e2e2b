// The end of a job through the command: once it has read all its input it
// puts its results in place, in order (the output's rename, then the filter
// or set file, then the statistics), and what it says on stderr must be
// what the files hold. A signal lands exactly between two of those steps
// (gdedup-faults raises it just before a file call of the test's choosing:
// tests/tools/gdedup_faults.cpp), and a full disk fails the filter's save or
// the statistics after the output took its place; each time the files on
// disk are compared with what the lines say, and the advice they give is
// followed to see that it is right.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <string>
#include <unordered_set>
#include <vector>

#include "cli_util.h"

namespace {

using cli_test::contains;
using cli_test::read_file;
using cli_test::Result;
using cli_test::with;

// The test-only build of the command with `variable` set to `value`.
Result run_faulted(const char* variable, const std::string& value,
                   const std::vector<std::string>& args) {
  cli_test::ScopedEnv fault(variable, value);
  cli_test::RunSpec spec;
  spec.args = args;
  spec.bin = GDEDUP_FAULTS_CLI;
  return cli_test::run(spec);
}

// The kinds of thing a job keeps its keys in, each sized so far past this
// test's data that the dedup is exact: a false positive (about 1e-9 a
// key) would fail the comparison with the oracle.
struct Keeper {
  const char* name;
  std::vector<std::string> options;
  const char* word;  // as messages name its file
};
const Keeper kKeepers[] = {
    {"fixed filter", {"--capacity", "1M", "--fpr", "1e-9", "--no-grow"}, "filter"},
    {"growing filter", {"--capacity", "5000", "--fpr", "1e-9"}, "filter"},
    {"exact set", {"--exact"}, "set file"},
};

const char* const kSignals[] = {"TERM", "INT", "HUP"};

// URLs of keys [from, to), each key twice (the second copy 7 keys later).
std::string urls(int from, int to) {
  std::string text;
  for (int i = from; i < to; ++i) {
    text += "https://p.example/" + std::to_string(i) + "\n";
    if (i - 7 >= from) text += "https://p.example/" + std::to_string(i - 7) + "\n";
  }
  return text;
}

// The oracle: the first record of each key of `input` not in `earlier`.
std::string new_records(const std::string& earlier, const std::string& input) {
  std::unordered_set<std::string> seen;
  for (const std::string& r : cli_test::split_records(earlier)) seen.insert(r);
  std::vector<std::string> kept;
  for (const std::string& r : cli_test::split_records(input)) {
    if (seen.insert(r).second) kept.push_back(r);
  }
  return cli_test::join_records(kept);
}

class CliPublish : public ::testing::Test {
 protected:
  void SetUp() override {
    cli_test::write_file(earlier_, urls(0, 3000));
    cli_test::write_file(input_, urls(2000, 8000));
    want_ = new_records(read_file(earlier_), read_file(input_));
  }

  // The job's files as they were before it: a filter or set of `keeper`
  // holding the earlier keys, an output and no statistics.
  void set_up_files(const Keeper& keeper) {
    if (built_for_ != &keeper) {
      built_for_ = &keeper;
      std::filesystem::remove(filter_);
      const Result r = cli_test::run(with({"build", earlier_, "-f", filter_, "-q"},
                                          keeper.options));
      ASSERT_EQ(r.status, 0) << r.err;
      previous_filter_ = read_file(filter_);
    }
    cli_test::write_file(filter_, previous_filter_);
    cli_test::write_file(out_, "the previous output\n");
    std::filesystem::remove(stats_);
  }

  // The filter or set file that `args`, a job on `keeper`'s files, saves
  // when nothing fails; the files are then as they were before it again.
  std::string saved_without_faults(const Keeper& keeper, const std::vector<std::string>& args) {
    const Result r = cli_test::run(args);
    EXPECT_EQ(r.status, 0) << r.err;
    const std::string saved = read_file(filter_);
    set_up_files(keeper);
    return saved;
  }

  std::vector<std::string> dedup(const Keeper& keeper) const {
    return with({"dedup", input_, "-o", out_, "-f", filter_, "--stats", stats_, "-q"},
                keeper.options);
  }

  // A statistics file of a job on the input (not of the build before it).
  bool stats_of_this_job() const {
    return contains(read_file(stats_),
                    "\"records\": " +
                        std::to_string(cli_test::split_records(read_file(input_)).size()) + ",");
  }

  cli_test::TempDir dir_;
  const std::string earlier_ = dir_ / "earlier.txt", input_ = dir_ / "in.txt";
  const std::string out_ = dir_ / "o.txt", filter_ = dir_ / "f", stats_ = dir_ / "st.json";
  std::string want_;
  std::string previous_filter_;
  const Keeper* built_for_ = nullptr;  // the keeper previous_filter_ is of
};

// Just before each step of putting the results in place, and after the
// last: the job completes (exit 0) and says so, naming every file, and
// each holds this job's result. It used to end at once with "the output
// o.txt was left as it was before the job; the filter f was not updated;
// st.json was not written", whatever it had put in place by then.
TEST_F(CliPublish, ASignalWhileTheResultsArePutInPlaceLetsTheJobComplete) {
  REQUIRE_GDEDUP_BIN();
  int n = 0;
  for (const Keeper& keeper : kKeepers) {
    ASSERT_NO_FATAL_FAILURE(set_up_files(keeper));
    const std::string want_filter = saved_without_faults(keeper, dedup(keeper));
    const std::string boundaries[] = {
        "rename:1:" + out_,             // before the output's rename
        "create:1:" + filter_ + ".tmp.",  // after it, before the filter's save
        "rename:1:" + filter_,          // inside that save
        "create:1:" + stats_ + ".tmp.",   // after it, before the statistics
        "unlink:1:" + out_ + ".lock",   // after them all
    };
    for (const std::string& at : boundaries) {
      const std::string sig = kSignals[n++ % 3];
      SCOPED_TRACE(std::string(keeper.name) + ", SIG" + sig + " at " + at);
      ASSERT_NO_FATAL_FAILURE(set_up_files(keeper));
      const Result r = run_faulted("GDEDUP_SIGNAL_AT", sig + ":" + at, dedup(keeper));
      EXPECT_EQ(r.status, 0) << r.err;
      EXPECT_TRUE(contains(r.err, "gdedup: SIG" + sig + " noted; the job has done its work and "
                                  "ends once its results are in place\n"))
          << r.err;
      EXPECT_TRUE(contains(r.err, "gdedup: SIG" + sig + " came as the job was finishing, so it "
                                  "completed: the output " + out_ + ", the " + keeper.word +
                                  " " + filter_ + " and the statistics file " + stats_ +
                                  " hold this job's result\n"))
          << r.err;
      EXPECT_TRUE(cli_test::same_bytes(read_file(out_), want_));
      EXPECT_TRUE(cli_test::same_bytes(read_file(filter_), want_filter));
      EXPECT_TRUE(stats_of_this_job()) << read_file(stats_);
    }
  }
}

// The same for a build (no output), a query (no filter saved) and an
// output in parts (its manifest is what puts it in place).
TEST_F(CliPublish, ASignalWhileABuildAQueryOrPartsArePutInPlaceLetsThemComplete) {
  REQUIRE_GDEDUP_BIN();
  const Keeper& keeper = kKeepers[2];
  ASSERT_NO_FATAL_FAILURE(set_up_files(keeper));
  const std::string parts = dir_ / "parts";
  struct Job {
    std::vector<std::string> args;
    std::string at;
    std::string holders;
  };
  const std::vector<Job> jobs = {
      {with({"build", input_, "-f", filter_, "--stats", stats_, "-q"}, keeper.options),
       "rename:1:" + filter_,
       "the set file " + filter_ + " and the statistics file " + stats_ + " hold"},
      {with({"query", "--absent", input_, "-f", filter_, "-o", out_, "--stats", stats_, "-q"},
            keeper.options),
       "create:1:" + stats_ + ".tmp.",
       "the output " + out_ + " and the statistics file " + stats_ + " hold"},
      {with({"dedup", input_, "--output-parts", parts, "-f", filter_, "--stats", stats_, "-q"},
            keeper.options),
       "create:1:" + filter_ + ".tmp.",
       "the folder " + parts + " (its MANIFEST lists this job's parts), the set file " +
           filter_ + " and the statistics file " + stats_ + " hold"},
  };
  for (const Job& job : jobs) {
    SCOPED_TRACE(job.args[0] + " " + job.at);
    ASSERT_NO_FATAL_FAILURE(set_up_files(keeper));
    const Result r = run_faulted("GDEDUP_SIGNAL_AT", "TERM:" + job.at, job.args);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(contains(r.err, "gdedup: SIGTERM came as the job was finishing, so it completed: " +
                                    job.holders + " this job's result\n"))
        << r.err;
    EXPECT_TRUE(stats_of_this_job()) << read_file(stats_);
  }
  // The query and the parts: the records not in the earlier keys.
  std::string in_parts;
  for (const auto& e : std::filesystem::directory_iterator(parts)) {
    if (e.path().filename().string().rfind("part-", 0) == 0) in_parts += read_file(e.path());
  }
  EXPECT_TRUE(cli_test::same_bytes(in_parts, want_));
  // The query ran on the build's set, which holds every key of the input.
  const Result query = cli_test::run({"query", input_, "-f", filter_, "--exact", "-q"});
  EXPECT_TRUE(cli_test::same_bytes(query.out, read_file(input_)));
}

// A full disk as the filter or set file is saved, after the output took its
// place: the line says that the output holds the job's result and the
// filter lacks its keys, and that the same command again does it all; done
// so, it gives the uninterrupted job's files. It used to say only that the
// file was not saved.
TEST_F(CliPublish, AFailedSaveAfterTheOutputSaysTheOutputHoldsTheResult) {
  REQUIRE_GDEDUP_BIN();
  for (const Keeper& keeper : kKeepers) {
    SCOPED_TRACE(keeper.name);
    ASSERT_NO_FATAL_FAILURE(set_up_files(keeper));
    const std::string want_filter = saved_without_faults(keeper, dedup(keeper));
    const Result r = run_faulted("GDEDUP_FAIL_AT", "ENOSPC:write:1:" + filter_ + ".tmp.",
                                 dedup(keeper));
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_TRUE(cli_test::one_error_line(r.err));
    EXPECT_TRUE(contains(r.err, "No space left on device. The job had done its work: the output " +
                                    out_ + " already holds its result, but the " + keeper.word +
                                    " " + filter_ + " was not updated, so it lacks this job's "
                                    "keys, and the statistics file " + stats_ +
                                    " was not written. Once the cause is fixed, the same command "
                                    "on the same inputs writes the same output again and saves "
                                    "the " + keeper.word + ".\n"))
        << r.err;
    EXPECT_TRUE(cli_test::same_bytes(read_file(out_), want_));
    EXPECT_TRUE(cli_test::same_bytes(read_file(filter_), previous_filter_));
    EXPECT_FALSE(cli_test::exists(stats_));
    const Result again = cli_test::run(dedup(keeper));
    EXPECT_EQ(again.status, 0) << again.err;
    EXPECT_TRUE(cli_test::same_bytes(read_file(out_), want_));
    EXPECT_TRUE(cli_test::same_bytes(read_file(filter_), want_filter));
  }
}

// A checkpointed job keeps its checkpoint until the filter is saved: the
// line says to resume from it, and the resume gives the uninterrupted
// job's files.
TEST_F(CliPublish, AFailedSaveOfACheckpointedJobSaysToResume) {
  REQUIRE_GDEDUP_BIN();
  const Keeper& keeper = kKeepers[1];
  ASSERT_NO_FATAL_FAILURE(set_up_files(keeper));
  const std::string ck = dir_ / "ck";
  const std::vector<std::string> job =
      with(dedup(keeper), {"--checkpoint", ck, "--checkpoint-every", "4000", "--batch", "1000"});
  const std::string want_filter = saved_without_faults(keeper, job);
  const Result r = run_faulted("GDEDUP_FAIL_AT", "ENOSPC:write:1:" + filter_ + ".tmp.", job);
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "The job had done its work: the output " + out_ +
                                  " already holds its result, but the filter " + filter_ +
                                  " was not updated, so it lacks this job's keys, and the "
                                  "statistics file " + stats_ + " was not written. Once the "
                                  "cause is fixed, the same command plus --resume finishes the "
                                  "job from the checkpoint " + ck +
                                  ", writing the same output again.\n"))
      << r.err;
  EXPECT_TRUE(cli_test::same_bytes(read_file(out_), want_));
  const Result resumed = cli_test::run(with(job, {"--resume"}));
  EXPECT_EQ(resumed.status, 0) << resumed.err;
  EXPECT_TRUE(cli_test::same_bytes(read_file(out_), want_));
  EXPECT_TRUE(cli_test::same_bytes(read_file(filter_), want_filter));
  EXPECT_TRUE(stats_of_this_job()) << read_file(stats_);
}

// A full disk for the statistics, after the filter was saved: the line says
// that output and filter hold the job's result, and that the same command
// again would now take every record as seen; done so, it writes nothing.
TEST_F(CliPublish, AFailedStatisticsFileAfterTheSaveWarnsAgainstARerun) {
  REQUIRE_GDEDUP_BIN();
  for (const Keeper& keeper : kKeepers) {
    SCOPED_TRACE(keeper.name);
    ASSERT_NO_FATAL_FAILURE(set_up_files(keeper));
    const Result r = run_faulted("GDEDUP_FAIL_AT", "ENOSPC:create:1:" + stats_ + ".tmp.",
                                 dedup(keeper));
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_TRUE(cli_test::one_error_line(r.err));
    EXPECT_TRUE(contains(r.err, "No space left on device. The job had done its work: the output " +
                                    out_ + " and the " + keeper.word + " " + filter_ +
                                    " hold its result; only the statistics file " + stats_ +
                                    " was not written. Do not run it again with -f " + filter_ +
                                    ": the " + keeper.word + " now holds this job's keys, so "
                                    "every record would be taken as seen.\n"))
        << r.err;
    EXPECT_TRUE(cli_test::same_bytes(read_file(out_), want_));
    EXPECT_FALSE(cli_test::exists(stats_));
    const Result again = cli_test::run(dedup(keeper));
    EXPECT_EQ(again.status, 0) << again.err;
    EXPECT_TRUE(cli_test::same_bytes(read_file(out_), ""));
  }
}

}  // namespace
