// The crash guarantee end to end: a dedup over 2M records runs in forked
// children that are killed at pseudo-random moments (fixed seed) and resumed
// from their checkpoint each time; the output and the filter file must equal
// those of an uninterrupted run byte for byte. SIGKILL tests the hard path
// (a kill may land anywhere, including inside a checkpoint write); SIGTERM
// the graceful one (finish the batch, checkpoint, report interrupted).
//
// A child does nothing but the pipeline and leaves through _exit(), so the
// fork needs no exec.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "fs/file_ops.h"
#include "gdedup/backend.h"
#include "gdedup/checkpoint.h"
#include "gdedup/error.h"
#include "gdedup/filter.h"
#include "gdedup/filter_file.h"
#include "gdedup/pipeline.h"
#include "test_util.h"

namespace gdedup {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr uint64_t kRecords = 2'000'000;
constexpr int kMinKills = 20;
constexpr int kMaxRounds = 8;
// A child that was stopped by SIGTERM and wrote its checkpoint.
constexpr int kExitInterrupted = 3;
// 2 MiB: small enough that a checkpoint costs little, big enough that a
// kill often lands inside a write.
const FilterParams kParams{1 << 15, {512, 16}, kDefaultSeed};
// The children split each batch of 16,384 keys over 4 threads; the reference
// runs on one, so the sequential answer is the oracle for the threaded one.
const CpuOptions kChildThreads{4, CpuKernel::kAuto, 1024};

std::atomic<bool> g_stop{false};
extern "C" void on_sigterm(int) { g_stop.store(true); }

std::string read_file(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

class CheckpointKillLoop : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "gdedup_kill_loop_XXXXXX";
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    // Short lines, about 40% repeats.
    test::Rng rng(2024);
    std::string text;
    text.reserve(kRecords * 9);
    for (uint64_t i = 0; i < kRecords; ++i) {
      text += 'k';
      text += std::to_string(rng.below(kRecords * 6 / 10));
      text += '\n';
    }
    input_ = path("in.txt");
    std::ofstream(input_, std::ios::binary) << text;

    options_.inputs = {input_};
    options_.output = path("out.txt");
    options_.batch_records = 16384;
    options_.checkpoint = path("run.ckpt");
    options_.checkpoint_every_seconds = 0;
    options_.checkpoint_every_records = 100'000;

    // The reference, and the time a whole checkpointing run takes here.
    PipelineOptions reference = options_;
    reference.checkpoint.clear();
    reference.output = path("want.txt");
    Filter filter(kParams);
    auto backend = make_cpu_backend(filter);
    run_pipeline(reference, filter, *backend);
    save_filter(filter, path("want.gdf"));

    const Clock::time_point start = Clock::now();
    Filter timed(kParams);
    auto timed_backend = make_cpu_backend(timed);
    run_pipeline(options_, timed, *timed_backend);
    run_seconds_ = std::chrono::duration<double>(Clock::now() - start).count();
    fs::remove(options_.output);
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
  std::string path(const std::string& name) const { return (fs::path(dir_) / name).string(); }

  // The child: resume if a checkpoint exists, else start; on completion
  // save the filter. Never returns.
  [[noreturn]] void child(bool handle_sigterm) {
    if (handle_sigterm) {
      g_stop = false;
      struct sigaction action {};
      action.sa_handler = on_sigterm;
      ::sigaction(SIGTERM, &action, nullptr);
    }
    try {
      PipelineOptions o = options_;
      o.stop = &g_stop;
      PipelineStats stats;
      Filter filter(FilterParams{1, {256, 8}, 0});
      if (fs::exists(o.checkpoint)) {
        Checkpoint ck = load_checkpoint(o.checkpoint);
        filter = std::move(ck.filter);
        auto backend = make_cpu_backend(filter, kChildThreads);
        o.resume = &ck.state;
        stats = run_pipeline(o, filter, *backend);
      } else {
        filter = Filter(kParams);
        auto backend = make_cpu_backend(filter, kChildThreads);
        stats = run_pipeline(o, filter, *backend);
      }
      if (stats.interrupted) ::_exit(kExitInterrupted);
      save_filter(filter, path("got.gdf"));
      ::_exit(0);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "child failed: %s\n", e.what());
    }
    ::_exit(1);
  }

  // Changes whenever a new checkpoint is renamed into place (a new inode).
  uint64_t checkpoint_identity() const {
    struct stat st {};
    if (::stat(options_.checkpoint.c_str(), &st) != 0) return 0;
    return static_cast<uint64_t>(st.st_ino);
  }

  struct Tally {
    int kills = 0;            // children stopped by the signal
    int resumed_kills = 0;    // ... that had a checkpoint to start from
    int rounds = 0;
  };

  // Runs the job to completion again and again, signalling children at
  // random moments, until at least kMinKills children were stopped.
  Tally kill_loop(int signal_number) {
    test::Rng rng(signal_number == SIGKILL ? 9001 : 9002);
    Tally t;
    // A random moment within about two checkpoint intervals.
    const double window = run_seconds_ * 2 * options_.checkpoint_every_records / kRecords;
    while (t.kills < kMinKills && t.rounds < kMaxRounds) {
      ++t.rounds;
      fs::remove(options_.checkpoint);
      fs::remove(options_.output);
      fs::remove(path("got.gdf"));
      for (int child_runs = 0;; ++child_runs) {
        if (child_runs > 500) {
          ADD_FAILURE() << "the job made no progress";
          return t;
        }
        const bool had_checkpoint = fs::exists(options_.checkpoint);
        const pid_t pid = ::fork();
        if (pid < 0) {
          ADD_FAILURE() << "fork: " << gdedup::fs::error_text(errno);
          return t;
        }
        if (pid == 0) child(signal_number == SIGTERM);
        int status = 0;
        pid_t done = 0;
        // Mostly let the child write a checkpoint of its own first, so that
        // the job moves on; sometimes strike before it could.
        if (rng.below(4) != 0) {
          const uint64_t before = checkpoint_identity();
          const Clock::time_point limit = Clock::now() + std::chrono::seconds(10);
          while ((done = ::waitpid(pid, &status, WNOHANG)) == 0 &&
                 checkpoint_identity() == before && Clock::now() < limit) {
            std::this_thread::sleep_for(std::chrono::microseconds(200));
          }
        }
        const double delay = window * static_cast<double>(rng.below(1000)) / 1000.0;
        const Clock::time_point until =
            Clock::now() + std::chrono::duration_cast<Clock::duration>(
                               std::chrono::duration<double>(delay));
        while (done == 0 && (done = ::waitpid(pid, &status, WNOHANG)) == 0 &&
               Clock::now() < until) {
          std::this_thread::sleep_for(std::chrono::microseconds(500));
        }
        const bool signalled = done == 0 && t.kills < kMinKills;
        if (done == 0) {
          if (signalled) ::kill(pid, signal_number);
          ::waitpid(pid, &status, 0);
        }
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0) break;  // the job completed
        const bool stopped =
            (WIFSIGNALED(status) && WTERMSIG(status) == signal_number) ||
            (signal_number == SIGTERM && WIFEXITED(status) &&
             WEXITSTATUS(status) == kExitInterrupted);
        if (!stopped || !signalled) {
          ADD_FAILURE() << "child ended with status " << status << " (signalled: " << signalled
                        << ")";
          return t;
        }
        ++t.kills;
        if (had_checkpoint) ++t.resumed_kills;
        if (signal_number == SIGTERM && WIFEXITED(status)) {
          EXPECT_TRUE(fs::exists(options_.checkpoint)) << "SIGTERM left no checkpoint";
        }
      }
      EXPECT_EQ(read_file(options_.output), read_file(path("want.txt")))
          << "round " << t.rounds << " after " << t.kills << " kills";
      EXPECT_EQ(read_file(path("got.gdf")), read_file(path("want.gdf")))
          << "round " << t.rounds << " after " << t.kills << " kills";
      EXPECT_FALSE(fs::exists(options_.checkpoint)) << "the completed job left its checkpoint";
    }
    std::cout << "kills " << t.kills << ", of which resumed runs " << t.resumed_kills
              << ", rounds " << t.rounds << ", uninterrupted run " << run_seconds_ << " s\n";
    return t;
  }

  fs::path dir_;
  std::string input_;
  PipelineOptions options_;
  double run_seconds_ = 0;
};

TEST_F(CheckpointKillLoop, SigkillAtRandomPointsThenResumeGivesTheUninterruptedResult) {
  const Tally t = kill_loop(SIGKILL);
  EXPECT_GE(t.kills, kMinKills);
  EXPECT_GE(t.resumed_kills, kMinKills / 4) << "too few kills landed after a checkpoint";
}

TEST_F(CheckpointKillLoop, SigtermAtRandomPointsThenResumeGivesTheUninterruptedResult) {
  const Tally t = kill_loop(SIGTERM);
  EXPECT_GE(t.kills, kMinKills);
  EXPECT_GE(t.resumed_kills, kMinKills / 4) << "too few stops landed after a checkpoint";
}

}  // namespace
}  // namespace gdedup
