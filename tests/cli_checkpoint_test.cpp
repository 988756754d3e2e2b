// Checkpoints through the gdedup command (docs/CHECKPOINT.md, docs/CLI.md):
// runs killed with SIGKILL or stopped with SIGTERM at seeded moments and
// resumed until they complete, whose output and filter file must equal an
// uninterrupted run's byte for byte; every refusal of a resume, with its
// message and exit status; a failing checkpoint write.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "cli_util.h"

namespace {

using cli_test::Result;
using cli_test::run;
using cli_test::run_failing_write;
using Clock = std::chrono::steady_clock;

constexpr uint64_t kBatch = 20000;
constexpr const char* kBatchText = "20000";
constexpr const char* kEvery = "100K";

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// `count` short records drawn from `distinct` keys (fixed seed): about half
// repeat, and the file stays small enough to run many times.
std::string make_records(uint64_t count, uint64_t distinct, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::string text;
  text.reserve(count * 9);
  for (uint64_t i = 0; i < count; ++i) {
    text += 'k';
    text += std::to_string(rng() % distinct);
    text += '\n';
  }
  return text;
}

ino_t inode_of(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 ? st.st_ino : 0;
}

void truncate_to(const std::string& path, off_t size) {
  ASSERT_EQ(truncate(path.c_str(), size), 0) << path;
}

// The binary running in the background, stdout discarded and stderr in a
// file, so that the test can watch its files and signal it.
class Child {
 public:
  Child(const std::vector<std::string>& args, const std::string& err_path) {
    // The previous run's stderr must not be read as this one's.
    std::remove(err_path.c_str());
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) exec(args, err_path);
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child() {
    if (!reaped_) {
      kill(pid_, SIGKILL);
      wait();
    }
  }

  // True once the process has ended (it is then reaped).
  bool ended() {
    if (reaped_) return true;
    int wstatus = 0;
    if (waitpid(pid_, &wstatus, WNOHANG) != pid_) return false;
    record(wstatus);
    return true;
  }

  void signal(int sig) {
    if (!ended()) kill(pid_, sig);
  }

  // True once the process has a handler for `sig` (SigCgt in /proc).
  bool catches(int sig) const {
    std::ifstream status("/proc/" + std::to_string(pid_) + "/status");
    std::string key;
    while (status >> key) {
      if (key == "SigCgt:") {
        std::string hex;
        status >> hex;
        return (std::stoull(hex, nullptr, 16) >> (sig - 1) & 1) != 0;
      }
    }
    return false;
  }

  // Exit status, or 128 + signal.
  int wait() {
    if (!reaped_) {
      int wstatus = 0;
      while (waitpid(pid_, &wstatus, 0) < 0 && errno == EINTR) {
      }
      record(wstatus);
    }
    return status_;
  }

 private:
  [[noreturn]] static void exec(const std::vector<std::string>& args, const std::string& err_path) {
    const int null = open("/dev/null", O_RDWR);
    const int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (null < 0 || err < 0) _exit(125);
    dup2(null, 0);
    dup2(null, 1);
    dup2(err, 2);
    std::string bin = cli_test::binary();
    std::vector<std::string> copy = args;
    std::vector<char*> argv{bin.data()};
    for (std::string& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(bin.c_str(), argv.data());
    _exit(127);
  }

  void record(int wstatus) {
    reaped_ = true;
    status_ = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
  }

  pid_t pid_ = -1;
  bool reaped_ = false;
  int status_ = -1;
};

// Polls `done` every millisecond until it holds or `child` ends; false on
// timeout, which only means the moment passed.
bool wait_until(Child& child, const std::function<bool()>& done, double seconds) {
  const auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
  while (Clock::now() < deadline) {
    if (done()) return true;
    if (child.ended()) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

void sleep_ms(double ms) {
  std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(ms));
}

// "gdedup: interrupted by SIGTERM from process 42 at record 1,140,000; ..."
// -> 1140000; -1 if absent.
int64_t interrupted_at(const std::string& err) {
  const size_t line = err.find("gdedup: interrupted");
  const std::string marker = " at record ";
  const size_t at = line == std::string::npos ? line : err.find(marker, line);
  if (at == std::string::npos) return -1;
  int64_t value = 0;
  for (size_t i = at + marker.size(); i < err.size() && err[i] != ';'; ++i) {
    if (err[i] >= '0' && err[i] <= '9') value = value * 10 + (err[i] - '0');
  }
  return value;
}

// ----------------------------------------------------------------- kill loop

// Who sent the signal a job names ("interrupted by SIGTERM from process
// 4242"): that process's command line while it still runs, for a failure
// message.
std::string sender_of(const std::string& err) {
  const std::string marker = " from process ";
  const size_t at = err.find(marker);
  if (at == std::string::npos) return "the job does not name the sender";
  const std::string pid = err.substr(at + marker.size(), err.find_first_not_of(
                                                             "0123456789", at + marker.size()) -
                                                             at - marker.size());
  std::string command = cli_test::read_file("/proc/" + pid + "/cmdline");
  std::replace(command.begin(), command.end(), '\0', ' ');
  return "the sender was process " + pid +
         (command.empty() ? ", which has ended" : ": " + command);
}

// The temporary files of the output `out` beside it, OUT.tmp.XXXXXX.
std::vector<std::string> output_temporaries(const std::string& out) {
  const std::filesystem::path path(out);
  const std::string prefix = path.filename().string() + ".tmp.";
  std::vector<std::string> found;
  for (const auto& e : std::filesystem::directory_iterator(path.parent_path())) {
    if (e.path().filename().string().rfind(prefix, 0) == 0) found.push_back(e.path().string());
  }
  return found;
}

constexpr uint64_t kLoopRecords = 2'000'000;
// Two slices of 16,384 keys: enough for the CPU backend to split each batch
// over the two threads the loop asks for.
constexpr uint64_t kLoopBatch = 32768;
constexpr const char* kLoopBatchText = "32768";
constexpr int kSignalsPerLoop = 30;

// The 2M-record input and an uninterrupted run's output and filter, made
// once for both loops.
class CliCheckpointKillLoop : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (cli_test::binary().empty()) return;
    dir_ = new cli_test::TempDir;
    cli_test::write_file(*dir_ / "in.txt", make_records(kLoopRecords, kLoopRecords / 2, 20240611));
    // The reference runs on one thread, the loop on two: the sequential
    // answer is the oracle for the threaded one, front end and filter.
    const Result r = run(with(job_args(*dir_ / "ref.txt", *dir_ / "ref.bf", "1"), {"-q"}));
    ASSERT_EQ(r.status, 0) << r.err;
    reference_output_ = cli_test::read_file(*dir_ / "ref.txt");
    reference_filter_ = cli_test::read_file(*dir_ / "ref.bf");
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }

  // A small filter keeps each checkpoint cheap, so the loop sees many.
  // `threads` front-end workers (more than one: the input is read in pieces
  // of 16 MiB, and checkpoints fall inside and between them) and CPU backend
  // threads.
  static std::vector<std::string> job_args(const std::string& out, const std::string& filter,
                                           const char* threads) {
    return {"dedup", *dir_ / "in.txt", "-o", out, "-f", filter, "--capacity", "2M",
            "--fpr", "0.01", "--no-grow", "--batch", kLoopBatchText, "--threads", threads,
            "--filter-threads", threads};
  }

  struct Counts {
    int signals = 0;          // signals that stopped a run
    int early = 0;            // signals sent without waiting for a checkpoint
    int no_checkpoint = 0;    // resumes refused because none had been written
    int rounds = 0;           // jobs completed
  };

  // Starts jobs, signals them with `sig` at seeded moments and resumes them
  // until one completes; checks each completed job against the reference.
  void loop(int sig, uint64_t seed, Counts& c);

  static cli_test::TempDir* dir_;
  static std::string reference_output_;
  static std::string reference_filter_;
};

cli_test::TempDir* CliCheckpointKillLoop::dir_ = nullptr;
std::string CliCheckpointKillLoop::reference_output_;
std::string CliCheckpointKillLoop::reference_filter_;

void CliCheckpointKillLoop::loop(int sig, uint64_t seed, Counts& c) {
  const std::string out = *dir_ / "out.txt", filter = *dir_ / "out.bf", ck = *dir_ / "ck";
  const std::string err_path = *dir_ / "err.txt";
  const std::vector<std::string> base =
      with(job_args(out, filter, "2"), {"--checkpoint", ck, "--checkpoint-every", kEvery});
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> jitter(0.0, 1.0);
  int attempts = 0;
  while (c.signals < kSignalsPerLoop) {
    for (const std::string& path : {out, filter, ck, ck + ".tmp"}) std::remove(path.c_str());
    for (const std::string& path : output_temporaries(out)) std::remove(path.c_str());
    // Only a fresh run killed before its first checkpoint may leave an
    // output's temporary file no checkpoint names.
    int unnamed_allowed = 0;
    bool resume = false;
    for (;;) {
      ASSERT_LT(++attempts, 400) << "the loop is not converging";
      Child child(resume ? with(base, {"--resume"}) : base, err_path);
      if (c.signals < kSignalsPerLoop) {
        // Most signals wait for a checkpoint newer than the one the run
        // started from; some come at once: for a fresh run (always the
        // first), before its first checkpoint.
        const bool early = attempts == 1 || jitter(rng) < (resume ? 0.15 : 0.5);
        // A handler can only run once installed, which the command does
        // first thing: wait for that alone (not for any later sign of life),
        // so that early signals land while the inputs are still checked.
        if (sig != SIGKILL) wait_until(child, [&] { return child.catches(sig); }, 10);
        if (early) {
          ++c.early;
          sleep_ms(attempts == 1 ? 2 : 20 * jitter(rng));
        } else {
          const ino_t before = inode_of(ck);
          wait_until(child, [&] { const ino_t now = inode_of(ck); return now != 0 && now != before; },
                     10);
          sleep_ms(80 * jitter(rng));
        }
        // Every third stop is a hangup (a dropped ssh session), handled the same.
        child.signal(sig == SIGTERM && c.signals % 3 == 2 ? SIGHUP : sig);
      }
      const int status = child.wait();
      const std::string err = cli_test::read_file(err_path);
      if (status == 0) break;
      if (status == 128 + SIGKILL && sig == SIGKILL) {
        // Killed after the filter file was saved: the job had completed.
        if (cli_test::exists(filter) && !cli_test::exists(ck)) break;
        ++c.signals;
        resume = true;
        continue;
      }
      if (status == 3 && sig == SIGTERM) {
        const int64_t at = interrupted_at(err);
        ASSERT_GE(at, 0) << err;
        EXPECT_TRUE(contains(err, "; checkpoint saved to " + ck +
                                      "; resume with the same command plus --resume"))
            << err;
        EXPECT_TRUE(at % static_cast<int64_t>(kLoopBatch) == 0 ||
                    at == static_cast<int64_t>(kLoopRecords))
            << "stopped inside a batch: " << err;
        ASSERT_TRUE(cli_test::exists(ck)) << err;
        ++c.signals;
        resume = true;
        continue;
      }
      if (sig == SIGKILL && (status == 3 || contains(err, "gdedup: interrupted by SIG"))) {
        // Seen once, with the whole suite running beside: exit 3 (resuming).
        FAIL() << "exit status " << status << (resume ? " (resuming)" : "")
               << ": a catchable signal stopped the job, but this loop sends only SIGKILL, "
                  "and only to its own child, whose process id stays its own until this "
                  "loop reaps it; another process sent it (a stray kill of a process id "
                  "since reused, or a signal to the whole process group); "
               << sender_of(err) << ". The job said: " << err;
      }
      if (status == 1 && resume && contains(err, "no checkpoint at " + ck + " to resume from")) {
        ++c.no_checkpoint;
        ++unnamed_allowed;
        resume = false;
        continue;
      }
      FAIL() << "unexpected exit status " << status << (resume ? " (resuming): " : ": ") << err;
    }
    ++c.rounds;
    ASSERT_TRUE(cli_test::same_bytes(cli_test::read_file(out), reference_output_))
        << "output of round " << c.rounds;
    ASSERT_TRUE(cli_test::same_bytes(cli_test::read_file(filter), reference_filter_))
        << "filter of round " << c.rounds;
    EXPECT_FALSE(cli_test::exists(ck)) << "a completed run leaves no checkpoint";
    EXPECT_LE(output_temporaries(out).size(), static_cast<size_t>(unnamed_allowed))
        << "round " << c.rounds;
  }
}

TEST_F(CliCheckpointKillLoop, SigkillAtRandomMomentsThenResume) {
  REQUIRE_GDEDUP_BIN();
  Counts c;
  loop(SIGKILL, 7001, c);
  std::printf("SIGKILL loop: %d kills (%d early), %d resumes without a checkpoint, %d rounds\n",
              c.signals, c.early, c.no_checkpoint, c.rounds);
  EXPECT_GE(c.signals, kSignalsPerLoop);
  EXPECT_GE(c.no_checkpoint, 1) << "the first kill comes before any checkpoint";
}

TEST_F(CliCheckpointKillLoop, SigtermStopsWithACheckpointThenResume) {
  REQUIRE_GDEDUP_BIN();
  Counts c;
  loop(SIGTERM, 7002, c);
  std::printf("SIGTERM loop: %d stops (%d early), %d rounds\n", c.signals, c.early, c.rounds);
  EXPECT_GE(c.signals, kSignalsPerLoop);
  EXPECT_EQ(c.no_checkpoint, 0) << "a stopped run always leaves a checkpoint";
}

// ------------------------------------------------- a job stopped at a checkpoint

constexpr uint64_t kSmallRecords = 400'000;

// A job whose second checkpoint write failed: it stopped with exit 1 and the
// checkpoint of record 100,000 in place, the same every time.
class StoppedJob {
 public:
  StoppedJob() {
    cli_test::write_file(input(), make_records(kSmallRecords, kSmallRecords / 2, 99));
    const Result ref = run(with(args(dir_ / "ref.txt", dir_ / "ref.bf"), {"-q"}));
    if (ref.status != 0) throw std::runtime_error("reference run failed: " + ref.err);
    stop_result_ = run_failing_write(checkpoint(), 2, checkpointed());
  }

  std::string input() const { return dir_ / "in.txt"; }
  std::string output() const { return dir_ / "out.txt"; }
  std::string filter() const { return dir_ / "out.bf"; }
  std::string checkpoint() const { return dir_ / "ck"; }
  // The output's temporary file, out.txt.tmp.XXXXXX, which the stopped run
  // left for the resume ("" when there is none).
  std::string temporary() const {
    for (const auto& e : std::filesystem::directory_iterator(dir_.path())) {
      if (e.path().filename().string().rfind("out.txt.tmp.", 0) == 0) return e.path().string();
    }
    return "";
  }
  const Result& stop_result() const { return stop_result_; }
  const cli_test::TempDir& dir() const { return dir_; }

  std::vector<std::string> args(const std::string& out, const std::string& filter) const {
    return {"dedup", input(), "-o", out, "-f", filter, "--capacity", "1M", "--fpr", "0.01",
            "--no-grow", "--batch", kBatchText};
  }
  std::vector<std::string> checkpointed() const {
    return with(args(output(), filter()),
                {"--checkpoint", checkpoint(), "--checkpoint-every", kEvery});
  }
  std::vector<std::string> resumed(const std::vector<std::string>& more = {}) const {
    return with(with(checkpointed(), {"--resume"}), more);
  }

  ::testing::AssertionResult matches_reference() const {
    auto r = cli_test::same_bytes(cli_test::read_file(output()), cli_test::read_file(dir_ / "ref.txt"));
    if (!r) return r << " (output)";
    r = cli_test::same_bytes(cli_test::read_file(filter()), cli_test::read_file(dir_ / "ref.bf"));
    if (!r) return r << " (filter)";
    return ::testing::AssertionSuccess();
  }

 private:
  cli_test::TempDir dir_;
  Result stop_result_;
};

// A refused resume: exit 1, one line naming the problem, and nothing
// changed: the checkpoint and the output's temporary file are as they were,
// and there is still no output.
void expect_refused(const StoppedJob& job, const std::vector<std::string>& args,
                    const std::string& message) {
  const std::string ck_before = cli_test::read_file(job.checkpoint());
  const std::string out_before = cli_test::read_file(job.temporary());
  const Result r = run(with(args, {"-q"}));
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_TRUE(cli_test::one_error_line(r.err));
  EXPECT_TRUE(contains(r.err, message)) << "expected \"" << message << "\" in: " << r.err;
  EXPECT_EQ(cli_test::read_file(job.checkpoint()), ck_before);
  EXPECT_EQ(cli_test::read_file(job.temporary()), out_before);
  EXPECT_FALSE(cli_test::exists(job.output()));
  EXPECT_FALSE(cli_test::exists(job.filter()));
}

TEST(CliCheckpoint, FailingWriteKeepsThePreviousCheckpointAndResumes) {
  REQUIRE_GDEDUP_BIN();
  StoppedJob job;
  const Result& r = job.stop_result();
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "checkpoint failed: cannot write checkpoint " + job.checkpoint()))
      << r.err;
  EXPECT_TRUE(contains(r.err, "the previous checkpoint, at record 100000, is intact")) << r.err;
  EXPECT_TRUE(contains(r.err, "the same command plus --resume continues from the checkpoint " +
                                  job.checkpoint()))
      << r.err;
  EXPECT_FALSE(cli_test::exists(job.filter())) << "the filter is saved only at the end";
  EXPECT_FALSE(cli_test::exists(job.checkpoint() + ".tmp"));

  const Result resumed = run(job.resumed());
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  EXPECT_TRUE(contains(resumed.err, "resuming from checkpoint " + job.checkpoint() +
                                        " at record 100,000"))
      << resumed.err;
  EXPECT_TRUE(job.matches_reference());
  EXPECT_FALSE(cli_test::exists(job.checkpoint()));
}

TEST(CliCheckpoint, RefusesADamagedCheckpoint) {
  REQUIRE_GDEDUP_BIN();
  StoppedJob job;
  std::string bytes = cli_test::read_file(job.checkpoint());
  ASSERT_GT(bytes.size(), 5000u);
  bytes[4096 + 100] ^= 0x10;  // in the bit array
  cli_test::write_file(job.checkpoint(), bytes);
  expect_refused(job, job.resumed(),
                 "checkpoint " + job.checkpoint() + " is damaged: its bit array does not match");
}

TEST(CliCheckpoint, RefusesATruncatedCheckpoint) {
  REQUIRE_GDEDUP_BIN();
  StoppedJob job;
  truncate_to(job.checkpoint(), 4096 + 1000);
  expect_refused(job, job.resumed(), "checkpoint " + job.checkpoint() + " is truncated");
}

TEST(CliCheckpoint, RefusesAnotherFormatVersion) {
  REQUIRE_GDEDUP_BIN();
  StoppedJob job;
  std::string bytes = cli_test::read_file(job.checkpoint());
  bytes[8] = 2;  // version, little-endian u32 at offset 8 (docs/FORMAT.md): the previous one
  cli_test::write_file(job.checkpoint(), bytes);
  expect_refused(job, job.resumed(), "was written in checkpoint format version 2");
}

TEST(CliCheckpoint, RefusesOtherOptionsNamingThem) {
  REQUIRE_GDEDUP_BIN();
  StoppedJob job;
  expect_refused(job, job.resumed({"--key", "field:2"}),
                 "the key option differs: the checkpoint was written with \"whole\", this run "
                 "has \"field:2\"");
  expect_refused(job, job.resumed({"--normalize", "lowercase"}), "the normalize option differs");
  expect_refused(job, job.resumed({"--duplicates"}), "the mode option differs");
  // Sizing options must describe the checkpoint's filter.
  std::vector<std::string> bigger = job.resumed();
  for (size_t i = 0; i + 1 < bigger.size(); ++i) {
    if (bigger[i] == "--capacity") bigger[i + 1] = "3M";
  }
  expect_refused(job, bigger, "differs from the checkpoint's");
  // And the job still resumes with the right options.
  const Result r = run(with(job.resumed(), {"-q"}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(job.matches_reference());
}

TEST(CliCheckpoint, RefusesAChangedInput) {
  REQUIRE_GDEDUP_BIN();
  StoppedJob job;
  std::string input = cli_test::read_file(job.input());
  cli_test::write_file(job.input(), input + "one more line\n");
  expect_refused(job, job.resumed(),
                 "input 1 (" + job.input() + ") has changed since the checkpoint was written");
}

TEST(CliCheckpoint, RefusesAnOutputShorterThanTheCheckpoint) {
  REQUIRE_GDEDUP_BIN();
  StoppedJob job;
  truncate_to(job.temporary(), 10);
  expect_refused(job, job.resumed(),
                 "cannot resume output " + job.temporary() + ": it holds 10 bytes, fewer than");
}

TEST(CliCheckpoint, ResumeCutsOffBytesPastTheCheckpoint) {
  // The stopped run wrote past its checkpoint; a crash can leave anything
  // there. The resumed output must still be the uninterrupted one.
  REQUIRE_GDEDUP_BIN();
  StoppedJob job;
  cli_test::write_file(job.temporary(), cli_test::read_file(job.temporary()) +
                                            "bytes past the checkpoint\nand a partial rec");
  const Result r = run(with(job.resumed(), {"-q"}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(job.matches_reference());
}

TEST(CliCheckpoint, RefusesAnOutputChangedBeforeTheCheckpoint) {
  REQUIRE_GDEDUP_BIN();
  StoppedJob job;
  std::string bytes = cli_test::read_file(job.temporary());
  bytes[10] ^= 1;  // well inside the 100,000 records the checkpoint counts
  cli_test::write_file(job.temporary(), bytes);
  expect_refused(job, job.resumed(),
                 "cannot resume output " + job.temporary() + ": its first ");
}

TEST(CliCheckpoint, AFailedWriteAfterAResumeNamesTheCheckpointItResumedFrom) {
  REQUIRE_GDEDUP_BIN();
  StoppedJob job;
  const Result r = run_failing_write(job.checkpoint(), 1, with(job.resumed(), {"-q"}));
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "the previous checkpoint, at record 100000, is intact")) << r.err;
  EXPECT_FALSE(contains(r.err, "no earlier checkpoint")) << r.err;
}

TEST(CliCheckpoint, ResumeWithoutACheckpoint) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  cli_test::write_file(dir / "in.txt", "a\nb\n");
  const Result r = run({"dedup", dir / "in.txt", "-o", dir / "out.txt", "--checkpoint",
                        dir / "ck", "--resume", "-q"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "gdedup: no checkpoint at " + dir / "ck" +
                       " to resume from; run without --resume to start\n");
  EXPECT_FALSE(cli_test::exists(dir / "out.txt"));
}

TEST(CliCheckpoint, StartingOverOnAnExistingCheckpointIsRefused) {
  REQUIRE_GDEDUP_BIN();
  StoppedJob job;
  const Result r = run(with(job.checkpointed(), {"-q"}));
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "checkpoint " + job.checkpoint() + " exists from an earlier run"))
      << r.err;
  EXPECT_TRUE(cli_test::exists(job.checkpoint()));
  // Also when the run would take a filter file that exists (it once went on
  // and deleted the earlier run's checkpoint at its end).
  const std::string checkpoint = cli_test::read_file(job.checkpoint());
  ASSERT_EQ(run({"build", job.input(), "-f", job.filter(), "-q"}).status, 0);
  const Result again = run(with(job.checkpointed(), {"-q"}));
  EXPECT_EQ(again.status, 1) << again.err;
  EXPECT_TRUE(contains(again.err, "exists from an earlier run")) << again.err;
  EXPECT_EQ(cli_test::read_file(job.checkpoint()), checkpoint);
}

TEST(CliCheckpoint, StandardInputNeedsReplayableStdin) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  const std::string input = make_records(200000, 100000, 5);
  const std::vector<std::string> args = {"dedup", "-", "-o", dir / "out.txt", "--capacity", "1M",
                                         "--batch", kBatchText, "--checkpoint", dir / "ck",
                                         "--checkpoint-every", "50K", "-q"};
  Result r = run(args, input);
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(cli_test::one_error_line(r.err));
  EXPECT_TRUE(contains(r.err, "cannot checkpoint a run that reads standard input")) << r.err;
  EXPECT_TRUE(contains(r.err, "--replayable-stdin")) << r.err;
  EXPECT_FALSE(cli_test::exists(dir / "out.txt"));

  // Promised replayable, it checkpoints and resumes from the same bytes.
  const Result ref = run({"dedup", "-", "-o", dir / "ref.txt", "--capacity", "1M", "-q"}, input);
  ASSERT_EQ(ref.status, 0) << ref.err;
  r = run_failing_write(dir / "ck", 3, with(args, {"--replayable-stdin"}), input);
  EXPECT_EQ(r.status, 1) << r.err;
  r = run(with(args, {"--replayable-stdin", "--resume"}), input);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(cli_test::same_bytes(cli_test::read_file(dir / "out.txt"),
                                   cli_test::read_file(dir / "ref.txt")));
}

TEST(CliCheckpoint, BuildStopsAndResumes) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  cli_test::write_file(dir / "in.txt", make_records(300000, 200000, 11));
  const std::vector<std::string> args = {"build", dir / "in.txt", "--capacity", "1M",
                                         "--no-grow", "--batch", kBatchText, "-q"};
  Result r = run(with(args, {"-f", dir / "ref.bf"}));
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<std::string> ck_args =
      with(args, {"-f", dir / "out.bf", "--checkpoint", dir / "ck", "--checkpoint-every", "60K"});
  r = run_failing_write(dir / "ck", 4, ck_args);
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "at record 180000, is intact")) << r.err;
  r = run(with(ck_args, {"--resume"}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(cli_test::same_bytes(cli_test::read_file(dir / "out.bf"),
                                   cli_test::read_file(dir / "ref.bf")));
}

// An existing filter file is the starting point of the first run and stays
// as it was until the resumed run completes and saves the checkpoint's.
TEST(CliCheckpoint, ResumeWithAnExistingFilterFile) {
  REQUIRE_GDEDUP_BIN();
  StoppedJob job;
  const cli_test::TempDir& dir = job.dir();
  const std::vector<std::string> day1 = {"dedup", dir / "day1.txt", "-o", dir / "d1.txt",
                                         "--capacity", "1M", "--fpr", "0.01", "--no-grow", "-q"};
  cli_test::write_file(dir / "day1.txt", make_records(50000, 400000, 3));
  for (const char* f : {"seen.bf", "seen_ref.bf"}) {
    const Result r = run(with(day1, {"-f", dir / f}));
    ASSERT_EQ(r.status, 0) << r.err;
  }
  const std::vector<std::string> day2 = {"dedup", job.input(), "--batch", kBatchText, "-q"};
  Result r = run(with(day2, {"-o", dir / "ref2.txt", "-f", dir / "seen_ref.bf"}));
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string seen_before = cli_test::read_file(dir / "seen.bf");
  const std::vector<std::string> ck_day2 =
      with(day2, {"-o", dir / "out2.txt", "-f", dir / "seen.bf", "--checkpoint", dir / "ck2",
                  "--checkpoint-every", kEvery});
  r = run_failing_write(dir / "ck2", 3, ck_day2);
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_EQ(cli_test::read_file(dir / "seen.bf"), seen_before);
  r = run(with(ck_day2, {"--resume"}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(cli_test::same_bytes(cli_test::read_file(dir / "out2.txt"),
                                   cli_test::read_file(dir / "ref2.txt")));
  EXPECT_TRUE(cli_test::same_bytes(cli_test::read_file(dir / "seen.bf"),
                                   cli_test::read_file(dir / "seen_ref.bf")));
}

// A growing filter file from yesterday grows on in today's checkpointed run:
// stopped at a checkpoint and resumed, the output and the file's bytes are
// the uninterrupted run's, and the file is untouched until the job ends.
TEST(CliCheckpoint, AGrowingFilterFileGrowsOnAcrossAResume) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  cli_test::write_file(dir / "day1.txt", make_records(30000, 30000, 5));
  cli_test::write_file(dir / "day2.txt", make_records(kSmallRecords, kSmallRecords / 2, 6));
  for (const char* f : {"seen.bf", "seen_ref.bf"}) {
    const Result r = run({"build", dir / "day1.txt", "-f", dir / f, "--capacity", "1000",
                          "--fpr", "0.01", "-q"});
    ASSERT_EQ(r.status, 0) << r.err;
  }
  const std::vector<std::string> day2 = {"dedup", dir / "day2.txt", "--batch", kBatchText, "-q"};
  Result r = run(with(day2, {"-o", dir / "ref.txt", "-f", dir / "seen_ref.bf"}));
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string seen_before = cli_test::read_file(dir / "seen.bf");
  const std::vector<std::string> ck_day2 =
      with(day2, {"-o", dir / "out.txt", "-f", dir / "seen.bf", "--checkpoint", dir / "ck",
                  "--checkpoint-every", kEvery});
  r = run_failing_write(dir / "ck", 3, ck_day2);
  ASSERT_EQ(r.status, 1) << r.err;
  EXPECT_EQ(cli_test::read_file(dir / "seen.bf"), seen_before);
  // Another cap than the interrupted run's is refused, naming it.
  r = run(with(ck_day2, {"--resume", "--max-memory", "1G"}));
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "differs from the checkpoint's")) << r.err;
  r = run(with(ck_day2, {"--resume"}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(cli_test::same_bytes(cli_test::read_file(dir / "out.txt"),
                                   cli_test::read_file(dir / "ref.txt")));
  EXPECT_TRUE(cli_test::same_bytes(cli_test::read_file(dir / "seen.bf"),
                                   cli_test::read_file(dir / "seen_ref.bf")));
  r = run({"info", dir / "seen.bf"});
  EXPECT_TRUE(contains(r.out, "layers")) << r.out;
}

// ------------------------------------- the filter file while a job is stopped

// "PREFIX1\nPREFIX2\n...": `count` distinct keys.
std::string numbered(const std::string& prefix, uint64_t count) {
  std::string text;
  for (uint64_t i = 1; i <= count; ++i) text += prefix + std::to_string(i) + '\n';
  return text;
}

// Lines of `query KEYS -f FILTER`: the keys of KEYS the filter holds.
size_t keys_present(const std::string& keys, const std::string& filter) {
  const Result r = run({"query", keys, "-f", filter, "-q"});
  EXPECT_EQ(r.status, 0) << r.err;
  return static_cast<size_t>(std::count(r.out.begin(), r.out.end(), '\n'));
}

// A dedup with -f day.gdf stopped at its checkpoint of record 100,000 (its
// second checkpoint write fails), the same every time.
struct DayJob {
  explicit DayJob(const cli_test::TempDir& dir)
      : day(dir / "day.gdf"), ck(dir / "ck"), output(dir / "o.txt"),
        args{"dedup", dir / "big.txt", "-o", output, "-f", day, "--checkpoint", ck,
             "--checkpoint-every", kEvery, "--batch", kBatchText, "-q"} {
    cli_test::write_file(dir / "big.txt", make_records(kSmallRecords, kSmallRecords / 2, 12));
  }
  void stop() const {
    const Result r = run_failing_write(ck, 2, args);
    ASSERT_EQ(r.status, 1) << r.err;
    ASSERT_TRUE(contains(r.err, "at record 100000, is intact")) << r.err;
  }
  std::vector<std::string> resumed() const { return with(args, {"--resume"}); }

  std::string day, ck, output;
  std::vector<std::string> args;
};

// Another job saves keys to the filter file while this one is stopped: the
// resume is refused, naming what happened, and the file keeps those keys
// (a resume saved the checkpoint's older filter over them: 6 of 100,000
// keys were left). Starting the job again, as the message says, keeps both.
TEST(CliCheckpoint, AResumeKeepsTheKeysAnotherJobSavedToTheFilterFile) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  cli_test::write_file(dir / "a.txt", numbered("A", 5000));
  cli_test::write_file(dir / "c.txt", numbered("C", 100000));
  const DayJob job(dir);
  Result r = run({"build", dir / "a.txt", "-f", job.day, "--capacity", "5000", "-q"});
  ASSERT_EQ(r.status, 0) << r.err;
  job.stop();
  r = run({"build", dir / "c.txt", "-f", job.day, "-q"});
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_EQ(keys_present(dir / "c.txt", job.day), 100000u);
  const std::string with_c = cli_test::read_file(job.day);
  const std::string ck_before = cli_test::read_file(job.ck);
  r = run(job.resumed());
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_TRUE(cli_test::one_error_line(r.err)) << r.err;
  EXPECT_TRUE(contains(r.err, "cannot resume from checkpoint " + job.ck + ": the filter file " +
                                  job.day + " changed while the job was stopped: it was saved "
                                  "again or replaced (its size was "))
      << r.err;
  EXPECT_TRUE(contains(r.err, "Start the job again from the file as it is now: delete " +
                                  job.ck + " and run the same command without --resume."))
      << r.err;
  EXPECT_EQ(cli_test::read_file(job.day), with_c);
  EXPECT_EQ(cli_test::read_file(job.ck), ck_before);
  EXPECT_FALSE(cli_test::exists(job.output));
  std::remove(job.ck.c_str());
  r = run(job.args);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(keys_present(dir / "c.txt", job.day), 100000u);
  EXPECT_EQ(keys_present(dir / "a.txt", job.day), 5000u);
  EXPECT_EQ(keys_present(dir / "big.txt", job.day), kSmallRecords);
}

// A filter file that appeared where the job had none, or that went away,
// is refused too; the file the job started from, put back as it was (same
// bytes and modification time), resumes to the uninterrupted run's files.
TEST(CliCheckpoint, AResumeRefusesAFilterFileCreatedOrRemovedMeanwhile) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  cli_test::write_file(dir / "c.txt", numbered("C", 1000));
  const DayJob job(dir);
  job.stop();
  Result r = run({"build", dir / "c.txt", "-f", job.day, "-q"});
  ASSERT_EQ(r.status, 0) << r.err;
  r = run(job.resumed());
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "the filter file " + job.day + " changed while the job was "
                              "stopped: it was created (the job started without one)"))
      << r.err;
  EXPECT_EQ(keys_present(dir / "c.txt", job.day), 1000u);

  // Started from the file, which is then removed.
  std::remove(job.ck.c_str());
  const std::vector<std::string> ref = {"dedup", dir / "big.txt", "-o", dir / "ref.txt", "-f",
                                        dir / "ref.gdf", "--batch", kBatchText, "-q"};
  ASSERT_EQ(std::system(("cp -p " + job.day + " " + std::string(dir / "ref.gdf")).c_str()), 0);
  ASSERT_EQ(std::system(("cp -p " + job.day + " " + std::string(dir / "kept.gdf")).c_str()), 0);
  r = run(ref);
  ASSERT_EQ(r.status, 0) << r.err;
  job.stop();
  std::remove(job.day.c_str());
  r = run(job.resumed());
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "changed while the job was stopped: it was removed. A resume "
                              "would save the checkpoint's filter there, bringing back the keys "
                              "the file held when the job started. Restore the file, or start "
                              "the job again: delete "))
      << r.err;
  EXPECT_FALSE(cli_test::exists(job.day));
  ASSERT_EQ(std::system(("cp -p " + std::string(dir / "kept.gdf") + " " + job.day).c_str()), 0);
  r = run(job.resumed());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(cli_test::same_bytes(cli_test::read_file(job.output),
                                   cli_test::read_file(dir / "ref.txt")));
  EXPECT_TRUE(cli_test::same_bytes(cli_test::read_file(job.day),
                                   cli_test::read_file(dir / "ref.gdf")));
}

// A job stopped after it saved its filter and renamed its output, but
// before it removed its checkpoint, changed the file itself: its resume
// completes with the same files. Had another job saved the file meanwhile,
// the resume completes the output but leaves the file as that job saved it,
// and says so.
TEST(CliCheckpoint, AJobStoppedAfterItSavedItsFilterResumes) {
  REQUIRE_GDEDUP_BIN();
  StoppedJob job;
  const cli_test::TempDir& dir = job.dir();
  const std::string stopped = cli_test::read_file(job.checkpoint());
  Result r = run(job.resumed({"-q"}));
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_TRUE(job.matches_reference());
  cli_test::write_file(job.checkpoint(), stopped);
  r = run(job.resumed({"-q"}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(job.matches_reference());
  EXPECT_FALSE(cli_test::exists(job.checkpoint()));
  EXPECT_EQ(job.temporary(), "");

  cli_test::write_file(job.checkpoint(), stopped);
  cli_test::write_file(dir / "c.txt", numbered("C", 1000));
  r = run({"build", dir / "c.txt", "-f", job.filter(), "-q"});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string other = cli_test::read_file(job.filter());
  r = run(job.resumed({"-q"}));
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "the job completed, but its filter was not saved to " +
                                  job.filter() + ", which another job saved or removed while "
                                  "this one was stopped"))
      << r.err;
  EXPECT_EQ(cli_test::read_file(job.filter()), other);
  EXPECT_TRUE(cli_test::same_bytes(cli_test::read_file(job.output()),
                                   cli_test::read_file(dir / "ref.txt")));
  EXPECT_TRUE(cli_test::exists(job.checkpoint()));
}

// Key options are compared as the values they mean, not as typed: a job
// checkpointed with one spelling resumes with another, and the output is the
// uninterrupted run's.
TEST(CliCheckpoint, AnotherSpellingOfTheKeyOptionsResumes) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  std::mt19937_64 rng(23);
  std::string text;
  for (int i = 0; i < 200000; ++i) {
    text += "r" + std::to_string(i) + "\tHTTP://Host" + std::to_string(rng() % 50) +
            ".example:80/p" + std::to_string(rng() % 2000) + "\n";
  }
  cli_test::write_file(dir / "in.tsv", text);
  const std::vector<std::string> job = {"dedup", dir / "in.tsv", "--capacity", "1M",
                                        "--batch",  kBatchText, "-q", "--key", "field:2"};
  const std::vector<std::string> spelled = {"--delimiter", "tab", "--normalize", "url"};
  const std::vector<std::string> respelled = {
      "--delimiter", "\\t", "--normalize",
      "add-root-slash,trim,lowercase-scheme,lowercase-host,drop-default-port,drop-fragment,"
      "drop-host-dot,uppercase-percent,decode-unreserved"};
  Result r = run(with(with(job, spelled), {"-o", dir / "ref.txt"}));
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<std::string> ck = {"-o", dir / "out.txt", "--checkpoint", dir / "ck",
                                       "--checkpoint-every", "60K"};
  r = run_failing_write(dir / "ck", 2, with(with(job, spelled), ck));
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "at record 60000, is intact")) << r.err;
  r = run(with(with(with(job, respelled), ck), {"--resume"}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(cli_test::same_bytes(cli_test::read_file(dir / "out.txt"),
                                   cli_test::read_file(dir / "ref.txt")));
  // A different value is still refused, named in canonical spelling.
  r = run_failing_write(dir / "ck", 2, with(with(job, spelled), ck));
  EXPECT_EQ(r.status, 1) << r.err;
  r = run(with(with(with(job, {"--delimiter", "\\x09", "--normalize", "url,drop-www"}), ck),
               {"--resume"}));
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "the normalize option differs")) << r.err;
}

// ------------------------------------------------- a filter that grows

// A dedup whose filter grows from a 1,000-key first layer to several layers
// (no -f: nothing fixes its size), checkpointed every 40,000 records.
class GrowingJob {
 public:
  GrowingJob() {
    cli_test::write_file(input(), make_records(kSmallRecords, kSmallRecords / 2, 17));
  }
  std::string input() const { return dir_ / "in.txt"; }
  std::string output() const { return dir_ / "out.txt"; }
  std::string checkpoint() const { return dir_ / "ck"; }
  const cli_test::TempDir& dir() const { return dir_; }
  // `sizing` replaces the job's --capacity 1000 --fpr 0.01.
  std::vector<std::string> args(const std::string& out, const std::vector<std::string>& more = {},
                                const std::vector<std::string>& sizing = {"--capacity", "1000",
                                                                          "--fpr", "0.01"}) const {
    return with(with({"dedup", input(), "-o", out, "--batch", kBatchText, "--stats",
                      dir_ / "stats.json"},
                     sizing),
                more);
  }
  std::vector<std::string> checkpointed(const std::vector<std::string>& more = {},
                                        const std::vector<std::string>& sizing = {
                                            "--capacity", "1000", "--fpr", "0.01"}) const {
    return with(args(output(), more, sizing),
                {"--checkpoint", checkpoint(), "--checkpoint-every", "40K"});
  }

 private:
  cli_test::TempDir dir_;
};

TEST(CliCheckpoint, AGrowingFilterStopsAndResumesWithTheSameOutput) {
  REQUIRE_GDEDUP_BIN();
  GrowingJob job;
  Result r = run(with(job.args(job.dir() / "ref.txt"), {"-q"}));
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string ref_stats = cli_test::read_file(job.dir() / "stats.json");
  EXPECT_TRUE(contains(ref_stats, "\"filter_layers\": 8,")) << ref_stats;
  // Stopped at record 120,000 (the third write fails), with 7 layers by then.
  r = run_failing_write(job.checkpoint(), 4, with(job.checkpointed(), {"-q"}));
  ASSERT_EQ(r.status, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "the previous checkpoint, at record 120000, is intact")) << r.err;
  r = run({"info", job.checkpoint()});
  EXPECT_TRUE(contains(r.out, "\nlayers        7\n")) << r.out;
  r = run(with(job.checkpointed(), {"--resume"}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "resuming from checkpoint " + job.checkpoint() +
                                  " at record 120,000; filter " + job.checkpoint() +
                                  ": growing, 7 layers"))
      << r.err;
  EXPECT_TRUE(cli_test::same_bytes(cli_test::read_file(job.output()),
                                   cli_test::read_file(job.dir() / "ref.txt")));
  EXPECT_TRUE(contains(cli_test::read_file(job.dir() / "stats.json"), "\"filter_layers\": 8,"));
  EXPECT_FALSE(cli_test::exists(job.checkpoint()));
}

TEST(CliCheckpoint, AGrowingFilterResumesOnlyWithTheSameGrowth) {
  REQUIRE_GDEDUP_BIN();
  GrowingJob job;
  Result r = run_failing_write(job.checkpoint(), 2, with(job.checkpointed(), {"-q"}));
  ASSERT_EQ(r.status, 1) << r.err;
  const std::string saved = cli_test::read_file(job.checkpoint());
  const struct {
    std::vector<std::string> args;
    std::string message;
  } cases[] = {
      {job.checkpointed({}, {"--capacity", "2000", "--fpr", "0.01"}),
       // A first layer is planned for at least the 1,024 keys between checks.
       "the filter's first layer differs from the checkpoint's: the checkpoint has 1024 keys, "
       "this run asks for 2000 keys"},
      {job.checkpointed({}, {"--capacity", "1000", "--fpr", "0.001"}),
       "the filter's target false-positive rate differs from the checkpoint's: the checkpoint "
       "has 0.01, this run asks for 0.001"},
      {with(job.checkpointed(), {"--block-bits", "256"}), "the filter's block size differs"},
      {with(job.checkpointed(), {"--max-memory", "64MiB"}),
       "the filter's memory limit differs from the checkpoint's: the checkpoint has no memory "
       "limit, this run asks for 67108864 bytes"},
      {with(job.checkpointed(), {"--no-grow"}),
       "the filter's growth differs from the checkpoint's: the checkpoint has a filter that "
       "grows, this run asks for a fixed filter; resume with the options of the interrupted run "
       "(--no-grow and --memory make a new filter fixed; an existing filter file keeps its own "
       "kind)"},
  };
  for (const auto& c : cases) {
    r = run(with(c.args, {"--resume", "-q"}));
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_TRUE(cli_test::one_error_line(r.err)) << r.err;
    EXPECT_TRUE(contains(r.err, "cannot resume from checkpoint " + job.checkpoint() + ": " +
                                    c.message))
        << "expected \"" << c.message << "\" in: " << r.err;
    EXPECT_EQ(cli_test::read_file(job.checkpoint()), saved);
  }
  // A fixed filter's checkpoint does not resume growing.
  std::remove(job.checkpoint().c_str());
  r = run_failing_write(job.checkpoint(), 2, with(job.checkpointed({"--no-grow"}), {"-q"}));
  ASSERT_EQ(r.status, 1) << r.err;
  r = run(with(job.checkpointed(), {"--resume", "-q"}));
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "the checkpoint has a fixed filter, this run asks for a filter "
                              "that grows"))
      << r.err;
}

// The test-only build of the command, killed with SIGKILL just before the
// file call `at` names (tests/tools/gdedup_faults.cpp, GDEDUP_KILL_AT).
Result run_killed_at(const std::string& at, const std::vector<std::string>& args) {
  cli_test::ScopedEnv kill_at("GDEDUP_KILL_AT", at);
  cli_test::RunSpec spec;
  spec.args = args;
  spec.bin = GDEDUP_FAULTS_CLI;
  return run(spec);
}

std::vector<std::string> temporaries_of(const StoppedJob& job) {
  return output_temporaries(job.output());
}

// A job killed after it renamed its output, before it removed its
// checkpoint, then resumed and killed again before its first checkpoint,
// again and again, left a new OUT.tmp.XXXXXX each time (40 kills left 26,
// 1.2 GB for a 78 MB output), which no run removed. Each resume now makes
// the file again at the name the checkpoint holds, or completes it there.
TEST(CliCheckpoint, KilledResumesLeaveNoTemporaryTheCheckpointDoesNotName) {
  REQUIRE_GDEDUP_BIN();
  StoppedJob job;
  const std::string named = job.temporary();
  ASSERT_NE(named, "");
  // After the output's rename, before the filter is saved.
  Result r = run_killed_at("rename:1:" + job.filter(), job.resumed({"-q"}));
  ASSERT_EQ(r.status, 128 + SIGKILL) << r.err;
  ASSERT_TRUE(cli_test::exists(job.output()));
  ASSERT_TRUE(cli_test::exists(job.checkpoint()));
  ASSERT_TRUE(temporaries_of(job).empty());
  // At the copy's first write (twice: the second resume completes the empty
  // file the first one left), at the first checkpoint's sync of the output,
  // and when the output is cut back to the checkpoint's offset.
  const std::string prefix = job.output() + ".tmp.";
  for (const char* at : {"write:1:", "write:1:", "sync:1:", "truncate:1:"}) {
    r = run_killed_at(at + prefix, job.resumed({"-q"}));
    ASSERT_EQ(r.status, 128 + SIGKILL) << at << " " << r.err;
    EXPECT_EQ(temporaries_of(job), std::vector<std::string>{named}) << at;
    EXPECT_TRUE(cli_test::exists(job.checkpoint()));
  }
  r = run(job.resumed({"-q"}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(job.matches_reference());
  EXPECT_TRUE(temporaries_of(job).empty());
  EXPECT_FALSE(cli_test::exists(job.checkpoint()));
}

// A first layer estimated from the inputs' sizes differs when the inputs
// do: a resume names the inputs that changed, not the layer ("the filter's
// first layer differs from the checkpoint's: the checkpoint has 5013959
// keys, this run asks for 5013962 keys").
TEST(CliCheckpoint, AResumeWithOtherInputsNamesThem) {
  REQUIRE_GDEDUP_BIN();
  GrowingJob job;
  const std::vector<std::string> estimated = job.checkpointed({}, {});
  Result r = run_failing_write(job.checkpoint(), 2, with(estimated, {"-q"}));
  ASSERT_EQ(r.status, 1) << r.err;
  const std::string input = cli_test::read_file(job.input());
  cli_test::write_file(job.input(), input + "k1\nk2\nk3\n");
  r = run(with(estimated, {"--resume", "-q"}));
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "cannot resume: input 1 (" + job.input() + ") has changed since "
                              "the checkpoint was written: its size was " +
                              std::to_string(input.size()) + " bytes and is now " +
                              std::to_string(input.size() + 9)))
      << r.err;
  cli_test::write_file(job.input(), input);
  cli_test::write_file(job.dir() / "more.txt", make_records(100000, 100000, 18));
  r = run(with(estimated, {"--resume", "-q", job.dir() / "more.txt"}));
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "the input list differs: the checkpoint was written with 1 "
                              "input, this run has 2 inputs"))
      << r.err;
  EXPECT_FALSE(contains(r.err, "first layer")) << r.err;
}

// Checkpoint format version 4 held one layer: a job checkpointed then had a
// fixed filter, whatever its options, and resumes with one.
TEST(CliCheckpoint, AVersion4CheckpointResumesWithItsFixedFilter) {
  REQUIRE_GDEDUP_BIN();
  GrowingJob job;
  Result r = run(with(job.args(job.dir() / "ref.txt", {"--no-grow"}), {"-q"}));
  ASSERT_EQ(r.status, 4) << r.err;  // 1,000 keys planned: overfull, as it was then
  r = run_failing_write(job.checkpoint(), 2, with(job.checkpointed({"--no-grow"}), {"-q"}));
  ASSERT_EQ(r.status, 1) << r.err;
  // The fixed filter's version 8 file, as version 4 wrote it: no growth
  // section (its last byte), no Parquet footer (the state's last 8 bytes:
  // a length of 0), no missing-key policy and count (the 9 bytes before:
  // error, 0), no filter file (the byte before them: none, as no -f was
  // given), the header's bytes from 96 zero.
  std::string bytes = cli_test::read_file(job.checkpoint());
  bytes.pop_back();
  ASSERT_EQ(bytes.substr(bytes.size() - 18), std::string(18, '\0'));
  bytes.resize(bytes.size() - 18);
  auto get_u64 = [&](size_t at) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(bytes[at + i]);
    return v;
  };
  auto put_u64 = [&](size_t at, uint64_t v) {
    for (int i = 0; i < 8; ++i) bytes[at + i] = static_cast<char>(v >> (8 * i));
  };
  const uint64_t state_bytes = get_u64(80) - 18;
  put_u64(80, state_bytes);
  put_u64(88, XXH3_64bits(bytes.data() + 4096 + get_u64(40), state_bytes));
  bytes[8] = 4;
  std::fill(bytes.begin() + 96, bytes.begin() + 112, '\0');
  const uint64_t sum = XXH3_64bits(bytes.data(), 4088);
  put_u64(4088, sum);
  cli_test::write_file(job.checkpoint(), bytes);
  r = run(with(job.checkpointed(), {"--resume"}));
  EXPECT_EQ(r.status, 4) << r.err;
  EXPECT_TRUE(contains(r.err, "resuming from checkpoint " + job.checkpoint() +
                              " at record 40,000; filter " + job.checkpoint()))
      << r.err;
  EXPECT_TRUE(cli_test::same_bytes(cli_test::read_file(job.output()),
                                   cli_test::read_file(job.dir() / "ref.txt")));
}

TEST(CliCheckpoint, UsageErrors) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  cli_test::write_file(dir / "in.txt", "a\nb\n");
  const std::vector<std::string> base = {"dedup", dir / "in.txt", "-o", dir / "out.txt", "-q"};
  const std::string ck = dir / "ck";
  const struct {
    std::vector<std::string> more;
    std::string message;
  } cases[] = {
      {{"--resume"}, "--resume needs --checkpoint FILE"},
      {{"--checkpoint-every", "10s"}, "--checkpoint-every needs --checkpoint FILE"},
      {{"--replayable-stdin"}, "--replayable-stdin needs --checkpoint FILE"},
      {{"--checkpoint", ck, "--checkpoint-every", "10x"}, "--checkpoint-every 10x: expected"},
      {{"--checkpoint", ck, "--checkpoint-every", "0s"}, "--checkpoint-every 0s: must be more"},
      {{"--checkpoint", ck, "--checkpoint-every", "0"}, "--checkpoint-every 0: must be at least"},
      {{"--checkpoint", ck, "--checkpoint-every", "1.5"}, "--checkpoint-every 1.5: expected"},
      {{"--checkpoint", ck, "--checkpoint-every", "10s,1m"}, "gives a second time interval"},
      {{"--checkpoint", ck, "--checkpoint-every", "1M", "--checkpoint-every", "5K"},
       "gives a second record interval"},
      {{"--checkpoint", dir / "in.txt"}, "is the same file as input"},
      {{"--checkpoint", dir / "out.txt"}, "is the same file as the output"},
      {{"--checkpoint", dir / "f.bf", "-f", dir / "f.bf"}, "is the same file as the filter"},
  };
  for (const auto& c : cases) {
    const Result r = run(with(base, c.more));
    EXPECT_EQ(r.status, 2) << c.message << ": " << r.err;
    EXPECT_TRUE(cli_test::one_error_line(r.err)) << c.message;
    EXPECT_TRUE(contains(r.err, c.message)) << "expected \"" << c.message << "\" in: " << r.err;
  }
  const Result r = run({"dedup", dir / "in.txt", "--checkpoint", ck, "-q"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "--checkpoint needs the output in a file (-o FILE)")) << r.err;
  EXPECT_FALSE(cli_test::exists(ck));
  EXPECT_FALSE(cli_test::exists(dir / "out.txt"));
}

TEST(CliCheckpoint, IntervalsAcceptedInEveryForm) {
  REQUIRE_GDEDUP_BIN();
  cli_test::TempDir dir;
  const std::string input = make_records(100000, 50000, 8);
  cli_test::write_file(dir / "in.txt", input);
  for (const std::vector<std::string>& every :
       std::vector<std::vector<std::string>>{{"60s"}, {"5m"}, {"1.5h"}, {"10K"}, {"1e4"},
                                             {"60s,10K"}, {"10000", "--checkpoint-every", "2s"}}) {
    const Result r = run(with({"dedup", dir / "in.txt", "-o", dir / "out.txt", "--capacity",
                               "1M", "--batch", "5000", "--checkpoint", dir / "ck",
                               "--checkpoint-every"},
                              every));
    EXPECT_EQ(r.status, 0) << every[0] << ": " << r.err;
    EXPECT_FALSE(cli_test::exists(dir / "ck")) << every[0];
    const bool by_records = every[0].find('K') != std::string::npos ||
                            every[0].find('e') != std::string::npos || every[0] == "10000";
    EXPECT_TRUE(contains(r.err, by_records ? "; 10 checkpoints written" : "; 0 checkpoints written"))
        << every[0] << ": " << r.err;
  }
}

TEST(CliCheckpoint, HelpShowsTheOptionsAndExitStatus) {
  REQUIRE_GDEDUP_BIN();
  for (const char* command : {"dedup", "build"}) {
    const Result r = run({command, "--help"});
    EXPECT_EQ(r.status, 0);
    for (const char* option : {"Checkpoints:", "--checkpoint FILE", "--checkpoint-every",
                               "--resume", "--replayable-stdin"}) {
      EXPECT_TRUE(contains(r.out, option)) << command << " --help lacks " << option;
    }
  }
  // Checkpointed runs grow like any other.
  const Result dedup = run({"dedup", "--help"});
  EXPECT_TRUE(contains(dedup.out, "with or without --checkpoint")) << dedup.out;
  EXPECT_FALSE(contains(dedup.out, "With --checkpoint")) << dedup.out;
  const Result top = run({"--help"});
  EXPECT_TRUE(contains(top.out, "3 interrupted with a checkpoint to resume from")) << top.out;
}

}  // namespace
