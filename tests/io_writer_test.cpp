// The output writer: exact bytes, resume at an offset, the errors a full disk
// and a closed pipe give, and same-file detection.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "fs/file_ops.h"
#include "gdedup/error.h"
#include "gdedup/input_file.h"
#include "gdedup/output_writer.h"

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

// `path` opened for reading and writing, as a resume opens it.
int open_rw(const std::string& path) {
  return ::open(path.c_str(), O_RDWR | O_CLOEXEC);
}

// The prefix a checkpoint would record for `text`, `records` records long.
OutputPrefix prefix_of(const std::string& text, uint64_t records) {
  return OutputPrefix{text.size(), records, XXH3_64bits(text.data(), text.size())};
}

// Lets the first `allowed` output bytes through, then fails writes the way
// a full disk does: the write that crosses the limit stores part of its
// bytes and reports ENOSPC.
class FillingDisk : public gdedup::fs::Observer {
 public:
  explicit FillingDisk(size_t allowed) : left_(allowed) { gdedup::fs::set_observer(this); }
  ~FillingDisk() override { gdedup::fs::set_observer(nullptr); }
  int before(gdedup::fs::Op op, const std::string&, size_t& bytes) override {
    if (op != gdedup::fs::Op::kWrite) return 0;
    if (left_ == 0) return ENOSPC;
    bytes = std::min(bytes, left_);
    left_ -= bytes;
    return 0;
  }

 private:
  size_t left_;
};

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

TEST_F(IoWriter, ContinueFileCutsTheFileAndContinues) {
  std::string out = path("out");
  std::ofstream(out) << "kept\ndropped\n";
  OutputWriter w = OutputWriter::continue_file(open_rw(out), out, prefix_of("kept\n", 1));
  EXPECT_EQ(w.bytes_written(), 5u);
  w.write_record("more", 4);
  w.sync();
  EXPECT_EQ(slurp(out), "kept\nmore\n");
  EXPECT_EQ(w.bytes_written(), 10u);
  w.close();
}

TEST_F(IoWriter, ContinueFileRefusesAFileShorterThanTheOffset) {
  std::string out = path("out");
  std::ofstream(out) << "short\n";
  try {
    OutputWriter::continue_file(open_rw(out), out, OutputPrefix{100, 1, 0});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("holds 6 bytes, fewer than the 100"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(slurp(out), "short\n");  // left alone
}

TEST_F(IoWriter, ContinueFileRefusesAPrefixChangedSinceTheCheckpoint) {
  std::string out = path("out");
  const std::string written = "first\nsecond\n";
  for (size_t at = 0; at < written.size(); ++at) {
    std::string changed = written;
    changed[at] ^= 0x20;
    std::ofstream(out, std::ios::binary | std::ios::trunc) << changed << "after\n";
    try {
      OutputWriter::continue_file(open_rw(out), out, prefix_of(written, 2));
      FAIL() << "byte " << at << " changed, yet the output was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("its first 13 bytes are not those the interrupted "
                                           "run wrote"),
                std::string::npos)
          << e.what();
    }
    EXPECT_EQ(slurp(out), changed + "after\n");  // left alone
  }
}

TEST_F(IoWriter, TheChecksumCoversEverythingWrittenAcrossAResume) {
  std::string out = path("out");
  OutputPrefix first;
  {
    OutputWriter w = OutputWriter::create(out, 3);
    w.write_record("alpha", 5);
    w.write_record("b", 1);
    w.flush();
    first = w.stored();
    w.close();
  }
  EXPECT_EQ(first.bytes, 8u);
  EXPECT_EQ(first.records, 2u);
  EXPECT_EQ(first.checksum, XXH3_64bits("alpha\nb\n", 8));
  OutputWriter w = OutputWriter::continue_file(open_rw(out), out, first);
  w.write_record("gamma", 5);
  w.flush();
  const OutputPrefix now = w.stored();
  EXPECT_EQ(now.records, 3u);
  EXPECT_EQ(now.checksum, XXH3_64bits("alpha\nb\ngamma\n", 14));
  w.close();
}

TEST_F(IoWriter, AFullDiskLeavesOnlyWholeRecords) {
  // Every limit on the bytes the disk takes, and buffers small enough to
  // split records across writes: the file ends with a whole record.
  std::vector<std::string> records{"one", "second record", "3", "a fourth, longer record"};
  std::string all;
  for (const auto& r : records) all += r + "\n";
  for (size_t buffer : {size_t{1}, size_t{5}, size_t{64}}) {
    for (size_t allowed = 0; allowed < all.size(); ++allowed) {
      const std::string out = path("out");
      OutputWriter w = OutputWriter::create(out, buffer);
      std::string message;
      {
        FillingDisk disk(allowed);
        try {
          for (const auto& r : records) w.write_record(r.data(), r.size());
          w.close();
        } catch (const Error& e) {
          message = e.what();
        }
      }
      ASSERT_FALSE(message.empty()) << "buffer " << buffer << ", disk " << allowed;
      const std::string got = slurp(out);
      EXPECT_TRUE(got.empty() || got.back() == '\n') << got;
      EXPECT_EQ(all.compare(0, got.size(), got), 0) << got;
      EXPECT_EQ(got.size(), w.stored().bytes);
      EXPECT_EQ(static_cast<uint64_t>(std::count(got.begin(), got.end(), '\n')),
                w.stored().records);
      EXPECT_NE(message.find("No space left on device"), std::string::npos) << message;
    }
  }
}

TEST_F(IoWriter, FollowsOnlyTrustedLinks) {
  // The user's own link is followed (this also covers /dev/stdout, root's
  // link in root's /dev); a link of another user in a folder it does not
  // own is refused. Only root can make the second kind.
  const std::string target = path("target");
  const std::string link = path("link");
  std::ofstream(target) << "old\n";
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  {
    OutputWriter w = OutputWriter::create(link);
    w.write_record("new", 3);
    w.close();
  }
  EXPECT_EQ(slurp(target), "new\n");
  if (::geteuid() != 0) GTEST_SKIP() << "planting another user's link needs root";
  ASSERT_EQ(::lchown(link.c_str(), 65534, 65534), 0);
  try {
    OutputWriter::create(link);
    FAIL() << "followed another user's link";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("symbolic link that belongs to another user"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(slurp(target), "new\n");
}

TEST_F(IoWriter, FullDiskIsAnError) {
  OutputWriter w = OutputWriter::create("/dev/full");
  w.write_record("x", 1);
  try {
    w.flush();
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::io) << "not a broken pipe";
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
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::broken_pipe);
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
