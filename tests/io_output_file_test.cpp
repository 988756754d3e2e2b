// The output file (io/output_file.h): written to a temporary file and renamed
// over the output only on commit, so that a job that fails leaves the old
// file; the temporary file kept for a resume and reopened only when it is
// the run's own.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "file_util.h"
#include "gdedup/error.h"
#include "io/output_file.h"

namespace gdedup::io {
namespace {

namespace stdfs = std::filesystem;

class IoOutputFile : public test::TempDirTest {
 protected:
  IoOutputFile() : TempDirTest("io_output_file") {}
  // Names in the folder, sorted: what a job left behind.
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : stdfs::directory_iterator(dir_)) out.push_back(e.path().filename());
    std::sort(out.begin(), out.end());
    return out;
  }
};

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

mode_t mode_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

// Random records from a fixed seed; returns what they make in the output.
std::string write_records(OutputWriter& w, uint64_t seed, int count) {
  std::mt19937_64 rng(seed);
  std::string text;
  for (int i = 0; i < count; ++i) {
    const std::string record = "r" + std::to_string(rng() % 100000);
    w.write_record(record.data(), record.size());
    text += record + "\n";
  }
  return text;
}

TEST_F(IoOutputFile, TheOutputChangesOnlyOnCommit) {
  const std::string out = path("out");
  std::ofstream(out) << "the previous output\n";
  OutputFile file = OutputFile::create(out);
  EXPECT_EQ(file.temporary().rfind(out + ".tmp.", 0), 0u) << file.temporary();
  const std::string text = write_records(file.writer(), 1, 5000);
  file.close();
  EXPECT_EQ(slurp(out), "the previous output\n");
  EXPECT_EQ(slurp(file.temporary()), text);
  file.commit();
  EXPECT_EQ(slurp(out), text);
  EXPECT_EQ(names(), std::vector<std::string>{"out"});
}

TEST_F(IoOutputFile, AnOutputNotCommittedLeavesTheOldFileAndNoTemporary) {
  const std::string out = path("out");
  std::ofstream(out) << "the previous output\n";
  {
    OutputFile file = OutputFile::create(out);
    write_records(file.writer(), 2, 100000);  // more than the buffer: some reach the file
    file.writer().flush();
  }
  EXPECT_EQ(slurp(out), "the previous output\n");
  EXPECT_EQ(names(), std::vector<std::string>{"out"});
  {
    OutputFile file = OutputFile::create(path("new"));
    write_records(file.writer(), 3, 10);
  }
  EXPECT_EQ(names(), std::vector<std::string>{"out"});  // nor a new name created
}

TEST_F(IoOutputFile, ANewFileGetsTheUmaskModeAndAReplacedOneKeepsItsOwn) {
  const mode_t old_umask = ::umask(027);
  {
    OutputFile file = OutputFile::create(path("new"));
    file.close();
    file.commit();
  }
  EXPECT_EQ(mode_of(path("new")), 0640u);
  ::umask(old_umask);
  for (const mode_t mode : {0600u, 0604u, 0660u, 0755u}) {
    const std::string out = path("old" + std::to_string(mode));
    std::ofstream(out) << "old\n";
    ASSERT_EQ(::chmod(out.c_str(), mode), 0);
    OutputFile file = OutputFile::create(out);
    EXPECT_EQ(mode_of(file.temporary()), mode);
    file.close();
    file.commit();
    EXPECT_EQ(mode_of(out), mode);
  }
}

TEST_F(IoOutputFile, ALinkToAFileReplacesTheFileAndKeepsTheLink) {
  const std::string target = path("target");
  const std::string link = path("link");
  std::ofstream(target) << "old\n";
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  OutputFile file = OutputFile::create(link);
  EXPECT_EQ(file.temporary().rfind(target + ".tmp.", 0), 0u) << file.temporary();
  file.writer().write_record("new", 3);
  file.close();
  EXPECT_EQ(slurp(target), "old\n");
  file.commit();
  struct stat st {};
  ASSERT_EQ(::lstat(link.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_EQ(slurp(target), "new\n");
}

TEST_F(IoOutputFile, DevicesAreWrittenInPlace) {
  OutputFile file = OutputFile::create("/dev/null");
  EXPECT_TRUE(file.in_place());
  file.writer().write_record("x", 1);
  file.close();
  file.commit();
  EXPECT_TRUE(replaced_file("-").empty());
}

// A run that wrote records, took a checkpoint of them (`first`, `prefix`),
// wrote more past it (cut on resume) and stopped; when `renamed`, it stopped
// only after renaming its temporary over the output.
struct StoppedRun {
  std::string temporary;
  std::string first;
  std::string all;
  OutputPrefix prefix;
};

StoppedRun stopped_run(const std::string& out, bool renamed) {
  StoppedRun run;
  OutputFile file = OutputFile::create(out);
  run.first = write_records(file.writer(), 4, 3000);
  file.writer().flush();
  run.prefix = file.writer().stored();
  file.keep_for_resume();
  run.all = run.first + write_records(file.writer(), 5, 700);
  run.temporary = file.temporary();
  if (renamed) {
    file.close();
    file.commit();
  }
  return run;
}

TEST_F(IoOutputFile, AKeptTemporaryIsResumedAndCommitted) {
  const std::string out = path("out");
  std::ofstream(out) << "the previous output\n";
  const StoppedRun run = stopped_run(out, false);
  const std::string& first = run.first;
  ASSERT_EQ(run.prefix.checksum, XXH3_64bits(first.data(), first.size()));
  EXPECT_EQ(slurp(out), "the previous output\n");
  OutputFile file = OutputFile::resume(out, run.temporary, run.prefix);
  EXPECT_EQ(file.temporary(), run.temporary);
  const std::string rest = write_records(file.writer(), 6, 2000);
  file.close();
  file.commit();
  EXPECT_EQ(slurp(out), first + rest);
  EXPECT_EQ(names(), std::vector<std::string>{"out"});
}

std::string resume_error(const std::string& out, const std::string& temporary,
                         const OutputPrefix& prefix) {
  try {
    OutputFile::resume(out, temporary, prefix);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST_F(IoOutputFile, ResumeRefusesAMissingTemporaryNamingIt) {
  const std::string message = resume_error(path("out"), path("out.tmp.abcdef"), OutputPrefix{});
  EXPECT_NE(message.find("its temporary file " + path("out.tmp.abcdef")), std::string::npos)
      << message;
  EXPECT_NE(message.find("is missing"), std::string::npos) << message;
}

// A run stopped after renaming its temporary over the output, before it
// removed the checkpoint: the resume continues from a copy of the output,
// made at the name the checkpoint holds (a resume stopped in turn leaves no
// file the checkpoint does not name), and leaves the output whole until its
// own rename.
TEST_F(IoOutputFile, ATemporaryRenamedOverTheOutputIsContinuedFromACopy) {
  const std::string out = path("out");
  const StoppedRun run = stopped_run(out, true);
  ASSERT_EQ(slurp(out), run.all);
  OutputFile file = OutputFile::resume(out, run.temporary, run.prefix);
  EXPECT_EQ(file.temporary(), run.temporary);
  EXPECT_TRUE(file.kept());
  EXPECT_EQ(slurp(out), run.all) << "the output must stay whole until the resumed run renames";
  const std::string rest = write_records(file.writer(), 6, 2000);
  file.close();
  file.commit();
  EXPECT_EQ(slurp(out), run.first + rest);
  EXPECT_EQ(names(), std::vector<std::string>{"out"});
}

// A resume of such a run stopped while it made the copy: the copy it left,
// shorter than the prefix, is completed from the output.
TEST_F(IoOutputFile, APartCopyOfTheRenamedTemporaryIsCompleted) {
  const std::string out = path("out");
  const StoppedRun run = stopped_run(out, true);
  std::ofstream(run.temporary) << run.first.substr(0, run.first.size() / 3);
  OutputFile file = OutputFile::resume(out, run.temporary, run.prefix);
  EXPECT_EQ(file.temporary(), run.temporary);
  const std::string rest = write_records(file.writer(), 6, 100);
  file.close();
  file.commit();
  EXPECT_EQ(slurp(out), run.first + rest);
  EXPECT_EQ(names(), std::vector<std::string>{"out"});
}

// A short temporary that the output does not continue is refused as short,
// and left as it was.
TEST_F(IoOutputFile, AShortTemporaryTheOutputDoesNotContinueIsRefused) {
  const std::string out = path("out");
  const StoppedRun run = stopped_run(out, false);
  std::ofstream(out) << std::string(run.first.size() + 10, 'x');
  const std::string part = run.first.substr(0, 100);
  std::ofstream(run.temporary) << part;
  const std::string message = resume_error(out, run.temporary, run.prefix);
  EXPECT_NE(message.find("holds 100 bytes, fewer than the " + std::to_string(run.prefix.bytes)),
            std::string::npos)
      << message;
  EXPECT_EQ(slurp(run.temporary), part);
}

TEST_F(IoOutputFile, AMissingTemporaryWithAnOutputThatDoesNotContinueItIsRefused) {
  const std::string out = path("out");
  std::ofstream(out) << "some other file, longer than the recorded prefix\n";
  const std::string message =
      resume_error(out, path("out.tmp.abcdef"), OutputPrefix{10, 1, 12345});
  EXPECT_NE(message.find("is missing"), std::string::npos) << message;
  EXPECT_NE(message.find("does not continue from it"), std::string::npos) << message;
  EXPECT_EQ(names(), std::vector<std::string>{"out"}) << "the copy was left behind";
  EXPECT_EQ(slurp(out), "some other file, longer than the recorded prefix\n");
}

TEST_F(IoOutputFile, ResumeFollowsNoLinkPlantedAtTheTemporaryName) {
  const std::string victim = path("victim");
  std::ofstream(victim) << "someone else's file\n";
  const std::string temporary = path("out.tmp.abcdef");
  ASSERT_EQ(::symlink(victim.c_str(), temporary.c_str()), 0);
  const std::string message = resume_error(path("out"), temporary, OutputPrefix{});
  EXPECT_NE(message.find("is a symbolic link, which gdedup never follows"), std::string::npos)
      << message;
  EXPECT_EQ(slurp(victim), "someone else's file\n");
}

TEST_F(IoOutputFile, ResumeRefusesATemporaryThatIsNotARegularFile) {
  const std::string temporary = path("out.tmp.abcdef");
  stdfs::create_directory(temporary);
  const std::string message = resume_error(path("out"), temporary, OutputPrefix{});
  EXPECT_NE(message.find(temporary), std::string::npos) << message;
}

TEST_F(IoOutputFile, ResumeRefusesATemporaryShorterThanTheOffset) {
  const std::string temporary = path("out.tmp.abcdef");
  std::ofstream(temporary) << "short\n";
  const std::string message = resume_error(path("out"), temporary, OutputPrefix{100, 1, 0});
  EXPECT_NE(message.find("holds 6 bytes, fewer than the 100"), std::string::npos) << message;
  EXPECT_EQ(slurp(temporary), "short\n");
}

TEST_F(IoOutputFile, ResumeRefusesAnotherUsersTemporary) {
  if (::geteuid() != 0) GTEST_SKIP() << "giving a file to another user needs root";
  const std::string temporary = path("out.tmp.abcdef");
  std::ofstream(temporary) << "planted\n";
  ASSERT_EQ(::chown(temporary.c_str(), 65534, 65534), 0);
  const std::string message = resume_error(path("out"), temporary, OutputPrefix{});
  EXPECT_NE(message.find("belongs to user 65534, not to the user running the job"),
            std::string::npos)
      << message;
}

// Plants a link to `victim` at each of the first `count` temporary names
// create() picks, just before it opens them: the race another user of a
// shared folder would try to win.
class LinkPlanter : public gdedup::fs::Observer {
 public:
  LinkPlanter(std::string victim, int count) : victim_(std::move(victim)), left_(count) {
    gdedup::fs::set_observer(this);
  }
  ~LinkPlanter() override { gdedup::fs::set_observer(nullptr); }
  int before(gdedup::fs::Op op, const std::string& name, size_t&) override {
    if (op != gdedup::fs::Op::kCreate || name.find(".tmp.") == std::string::npos) return 0;
    if (left_ > 0 && ::symlink(victim_.c_str(), name.c_str()) == 0) {
      --left_;
      planted.push_back(name);
    }
    return 0;
  }
  std::vector<std::string> planted;

 private:
  std::string victim_;
  int left_;
};

TEST_F(IoOutputFile, CreateFollowsNoLinkPlantedAtTheTemporaryName) {
  const std::string victim = path("victim");
  std::ofstream(victim) << "someone else's file\n";
  {
    LinkPlanter planter(victim, 3);
    OutputFile file = OutputFile::create(path("out"));
    ASSERT_EQ(planter.planted.size(), 3u);
    for (const std::string& link : planter.planted) EXPECT_NE(file.temporary(), link);
    struct stat st {};
    ASSERT_EQ(::lstat(file.temporary().c_str(), &st), 0);
    EXPECT_TRUE(S_ISREG(st.st_mode));
    file.writer().write_record("mine", 4);
    file.close();
    file.commit();
  }
  EXPECT_EQ(slurp(victim), "someone else's file\n");
  EXPECT_EQ(slurp(path("out")), "mine\n");
}

}  // namespace
}  // namespace gdedup::io
