// The output writer: exact bytes, resume at an offset, the errors a full disk
// and a closed pipe give, and same-file detection.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>

#include "gdedup/error.h"
#include "io/input_file.h"
#include "io/output_writer.h"

namespace gdedup::io {
namespace {

namespace fs = std::filesystem;

class IoWriter : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("io_writer_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

TEST_F(IoWriter, WritesExactlyTheRecordsAndNewlines) {
  std::mt19937_64 rng(11);
  for (size_t buffer : {size_t{1}, size_t{7}, size_t{4096}, OutputWriter::kDefaultBuffer}) {
    std::string want;
    std::string out = path("out" + std::to_string(buffer));
    {
      OutputWriter w = OutputWriter::create(out, buffer);
      for (int i = 0; i < 2000; ++i) {
        // Lengths around the buffer size, and all byte values.
        std::string rec(rng() % (i % 50 == 0 ? 10000 : 100), '\0');
        for (auto& c : rec) c = static_cast<char>(rng() % 256);
        w.write_record(rec.data(), rec.size());
        want += rec + '\n';
        EXPECT_EQ(w.bytes_written(), want.size());
      }
      w.write("raw", 3);
      want += "raw";
      w.close();
      EXPECT_EQ(w.bytes_written(), want.size());
    }
    EXPECT_TRUE(slurp(out) == want) << "buffer " << buffer;
  }
}

TEST_F(IoWriter, CreateTruncatesAnExistingFile) {
  std::string out = path("out");
  std::ofstream(out) << "old contents that are longer\n";
  OutputWriter w = OutputWriter::create(out);
  w.write_record("new", 3);
  w.close();
  EXPECT_EQ(slurp(out), "new\n");
}

TEST_F(IoWriter, OpenAtCutsTheFileAndContinues) {
  std::string out = path("out");
  std::ofstream(out) << "kept\ndropped\n";
  OutputWriter w = OutputWriter::open_at(out, 5);
  EXPECT_EQ(w.bytes_written(), 5u);
  w.write_record("more", 4);
  w.sync();
  EXPECT_EQ(slurp(out), "kept\nmore\n");
  EXPECT_EQ(w.bytes_written(), 10u);
  w.close();
}

TEST_F(IoWriter, OpenAtRefusesAFileShorterThanTheOffset) {
  std::string out = path("out");
  std::ofstream(out) << "short\n";
  try {
    OutputWriter::open_at(out, 100);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("holds 6 bytes, fewer than the 100"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(slurp(out), "short\n");  // left alone
  EXPECT_THROW(OutputWriter::open_at(path("missing"), 0), Error);
}

TEST_F(IoWriter, FullDiskIsAnError) {
  OutputWriter w = OutputWriter::create("/dev/full");
  w.write_record("x", 1);
  try {
    w.flush();
    FAIL();
  } catch (const BrokenPipe&) {
    FAIL() << "not a broken pipe";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot write to /dev/full: No space left on device.");
  }
  // Bytes still buffered at close() are an error there too.
  OutputWriter w2 = OutputWriter::create("/dev/full");
  w2.write_record("y", 1);
  EXPECT_THROW(w2.close(), Error);
  // And the destructor of an unclosed writer keeps quiet.
  { OutputWriter w3 = OutputWriter::create("/dev/full"); w3.write_record("z", 1); }
}

TEST_F(IoWriter, ClosedPipeIsABrokenPipe) {
  ignore_sigpipe();
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ::close(fds[0]);
  OutputWriter w(fds[1], "standard output", true);
  w.write_record("lost", 4);
  try {
    w.flush();
    FAIL();
  } catch (const BrokenPipe& e) {
    EXPECT_EQ(std::string(e.what()), "cannot write to standard output: Broken pipe.");
  }
}

TEST_F(IoWriter, SyncOnAPipeIsNotAnError) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  OutputWriter w(fds[1], "pipe", true);
  w.write_record("a", 1);
  EXPECT_NO_THROW(w.sync());
  char buf[2];
  ASSERT_EQ(::read(fds[0], buf, 2), 2);
  EXPECT_EQ(std::string(buf, 2), "a\n");
  w.close();
  ::close(fds[0]);
}

TEST_F(IoWriter, UncreatableOutputNamesThePath) {
  std::string out = path("no/such/dir/out");
  try {
    OutputWriter::create(out);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot create output " + out + ": No such file or directory.");
  }
}

TEST_F(IoWriter, SameFileSeesThroughLinksAndSpellings) {
  std::string a = path("a");
  std::string b = path("b");
  std::ofstream(a) << "a\n";
  std::ofstream(b) << "b\n";
  fs::create_hard_link(a, path("hard"));
  fs::create_symlink(a, path("soft"));
  EXPECT_TRUE(same_file(a, a));
  EXPECT_TRUE(same_file(a, (dir_ / "." / "a").string()));
  EXPECT_TRUE(same_file(a, path("hard")));
  EXPECT_TRUE(same_file(path("soft"), a));
  EXPECT_FALSE(same_file(a, b));
  EXPECT_FALSE(same_file(a, path("missing")));  // not created yet
  EXPECT_FALSE(same_file("/dev/null", "/dev/null"));  // devices never count
}

TEST_F(IoWriter, SameFileUnderstandsStandardOutput) {
  std::string a = path("a");
  std::ofstream(a) << "a\n";
  int saved = ::dup(STDOUT_FILENO);
  int fd = ::open(a.c_str(), O_WRONLY | O_APPEND);
  ASSERT_GE(fd, 0);
  ::dup2(fd, STDOUT_FILENO);
  ::close(fd);
  bool same = same_file(a, "-");
  ::dup2(saved, STDOUT_FILENO);
  ::close(saved);
  EXPECT_TRUE(same);
}

}  // namespace
}  // namespace gdedup::io
