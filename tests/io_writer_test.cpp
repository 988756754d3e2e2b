// The output writer: exact bytes, resume at an offset, the errors a full disk
// and a closed pipe give, and same-file detection. Buffers much smaller than
// the output put most writes on the writer thread (WriterThread tests).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <thread>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "fs/file_ops.h"
#include "gdedup/error.h"
#include "gdedup/frontend/output_writer.h"
#include "io/input_file.h"
#include "test_util.h"

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

// What writing `records` and closing `w` threw: its message ("" when
// nothing was thrown) and kind.
struct WriteFailure {
  std::string message;
  ErrorKind kind = ErrorKind::failure;
};

WriteFailure write_and_close(OutputWriter& w, const std::vector<std::string>& records) {
  try {
    for (const auto& r : records) w.write_record(r.data(), r.size());
    w.close();
  } catch (const Error& e) {
    return {e.what(), e.kind()};
  }
  return {};
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
        message = write_and_close(w, records).message;
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

// Records of 0 to 299 bytes (every byte value but the separator, so that
// the text's newlines count them), `count` of them.
std::vector<std::string> random_records(uint64_t seed, int count) {
  std::mt19937_64 rng(seed);
  std::vector<std::string> records(count);
  for (auto& r : records) {
    r.resize(rng() % 300);
    for (auto& c : r) c = static_cast<char>('\n' + 1 + rng() % 200);
  }
  return records;
}

// The whole records at the start of `text` and their count, as stored()
// must say once they reached the kernel.
void expect_whole_records_of(const std::string& text, const std::string& all,
                             const OutputPrefix& stored) {
  ASSERT_LE(stored.bytes, all.size());
  EXPECT_TRUE(text.compare(0, std::string::npos, all, 0, text.size()) == 0);
  EXPECT_TRUE(stored.bytes == 0 || all[stored.bytes - 1] == '\n') << stored.bytes;
  EXPECT_EQ(static_cast<uint64_t>(std::count(all.begin(), all.begin() + stored.bytes, '\n')),
            stored.records);
}

TEST_F(IoWriter, WriterThreadKeepsStoredExactBetweenFlushes) {
  // Buffers of a few records and of many: between flushes stored() only
  // ever names whole records the file already holds; after a flush, all
  // of them with the checksum of the whole output. Under AddressSanitizer
  // (23 s for 10,000 records there) a quarter of the records: still three
  // flushes and three looks between them for each buffer.
  const std::vector<std::string> records =
      random_records(5, test::kAddressSanitizer ? 2500 : 10000);
  const size_t flush_every = records.size() / 2 - 1;
  for (size_t buffer : {size_t{64}, size_t{4096}, size_t{65536}}) {
    const std::string out = path("out" + std::to_string(buffer));
    OutputWriter w = OutputWriter::create(out, buffer);
    std::string all;
    OutputPrefix last;
    for (size_t i = 0; i < records.size(); ++i) {
      w.write_record(records[i].data(), records[i].size());
      all += records[i] + '\n';
      ASSERT_EQ(w.bytes_written(), all.size());
      if (i % 997 == 0) {
        const OutputPrefix now = w.stored();
        expect_whole_records_of(slurp(out).substr(0, now.bytes), all, now);
        EXPECT_GE(now.bytes, last.bytes);
        EXPECT_LE(now.bytes, slurp(out).size());
        last = now;
      }
      if (i % flush_every == 0) {
        w.flush();
        const OutputPrefix flushed = w.stored();
        EXPECT_EQ(flushed.bytes, all.size());
        EXPECT_EQ(flushed.records, i + 1);
        EXPECT_EQ(flushed.checksum, XXH3_64bits(all.data(), all.size()));
        EXPECT_TRUE(slurp(out) == all) << "buffer " << buffer << ", record " << i;
      }
    }
    w.sync();
    EXPECT_TRUE(slurp(out) == all) << "buffer " << buffer;
    w.close();
    EXPECT_TRUE(slurp(out) == all) << "buffer " << buffer;
  }
}

TEST_F(IoWriter, WithoutAChecksumTheBytesAndRecordsAreStillCounted) {
  // The writer thread's buffers and the caller's: the same bytes and counts,
  // and no checksum, which nothing will check.
  const std::vector<std::string> records = random_records(9, 5000);
  const std::string out = path("out");
  OutputWriter w = OutputWriter::create(out, 256);
  w.skip_checksum();
  std::string all;
  for (const std::string& r : records) {
    w.write_record(r.data(), r.size());
    all += r + '\n';
  }
  w.flush();
  const OutputPrefix flushed = w.stored();
  EXPECT_EQ(flushed.bytes, all.size());
  EXPECT_EQ(flushed.records, records.size());
  EXPECT_EQ(flushed.checksum, 0u);
  w.close();
  EXPECT_TRUE(slurp(out) == all);
}

TEST_F(IoWriter, SkippingTheChecksumAfterAWriteChangesNothing) {
  const std::string out = path("out");
  OutputWriter w = OutputWriter::create(out, 3);
  w.write_record("alpha", 5);
  w.skip_checksum();
  w.write_record("b", 1);
  w.flush();
  EXPECT_EQ(w.stored().checksum, XXH3_64bits("alpha\nb\n", 8));
  w.close();
}

TEST_F(IoWriter, WriterThreadFullDiskLeavesOnlyWholeRecords) {
  // The disk fills while buffers are in flight: the file is cut back to a
  // whole record, stored() says what it holds, the message is the one a
  // write on the calling thread gives, and every later call repeats it.
  const std::vector<std::string> records = random_records(9, 3000);
  std::string all;
  for (const auto& r : records) all += r + '\n';
  for (size_t buffer : {size_t{256}, size_t{4096}}) {
    for (size_t allowed : {size_t{0}, size_t{1}, buffer - 1, buffer, buffer + 1, 3 * buffer + 7,
                           all.size() / 2, all.size() - 1}) {
      const std::string out = path("out");
      OutputWriter w = OutputWriter::create(out, buffer);
      std::string message;
      {
        FillingDisk disk(allowed);
        const WriteFailure failure = write_and_close(w, records);
        message = failure.message;
        if (!message.empty()) {
          EXPECT_EQ(failure.kind, ErrorKind::io);
        }
        // Nothing more is written once a write failed: the same error.
        try {
          w.write_record("late", 4);
          w.close();
          ADD_FAILURE() << "a write after the failure went through";
        } catch (const Error& e) {
          EXPECT_EQ(std::string(e.what()), message);
        }
      }
      const std::string where = "buffer " + std::to_string(buffer) + ", disk " +
                                std::to_string(allowed);
      ASSERT_FALSE(message.empty()) << where;
      const std::string got = slurp(out);
      EXPECT_EQ(got.size(), w.stored().bytes) << where;
      expect_whole_records_of(got, all, w.stored());
      EXPECT_EQ(w.stored().checksum, 0u) << "a failed output has no checksum to resume from";
      const std::string full = "cannot write to " + out + ": No space left on device";
      EXPECT_TRUE(message == full + "." ||
                  message == full + "; the incomplete record at its end was cut off.")
          << message;
      if (got.size() < allowed) {
        EXPECT_EQ(message, full + "; the incomplete record at its end was cut off.") << where;
      }
    }
  }
}

TEST_F(IoWriter, WriterThreadFailureReachesTheNextWrite) {
  // Without flush() or close(): a write to /dev/full fails on the writer
  // thread, and one of the next write_record() calls throws it, at the
  // latest once every buffer is in flight (back-pressure).
  const size_t buffer = 64;
  OutputWriter w = OutputWriter::create("/dev/full", buffer);
  size_t thrown_at = 0;
  std::string message;
  for (size_t i = 1; i <= (OutputWriter::kBuffers + 2) * buffer; ++i) {
    try {
      w.write_record("0123456789", 10);
    } catch (const Error& e) {
      thrown_at = i;
      message = e.what();
      EXPECT_EQ(e.kind(), ErrorKind::io);
      break;
    }
  }
  ASSERT_NE(thrown_at, 0u) << "no write_record() reported the failure";
  EXPECT_LE(thrown_at * 11, (OutputWriter::kBuffers + 1) * buffer + 11);
  EXPECT_EQ(message, "cannot write to /dev/full: No space left on device.");
  EXPECT_EQ(w.stored().records, 0u);
  try {
    w.close();
    FAIL() << "close() kept quiet about the failure";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), message);
  }
}

TEST_F(IoWriter, WriterThreadMeetsAPipeClosedMidStream) {
  // `gdedup ... | head -1`: the reader takes one line and goes; the writer
  // ends with a broken pipe, not a hang, whichever call meets it.
  ignore_sigpipe();
  for (size_t buffer : {size_t{512}, OutputWriter::kDefaultBuffer}) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    std::thread head([fd = fds[0]] {
      char c = 0;
      while (::read(fd, &c, 1) == 1 && c != '\n') {
      }
      ::close(fd);
    });
    OutputWriter w(fds[1], "standard output", true, 0, buffer);
    const std::string record(100, 'u');
    std::string message;
    try {
      for (int i = 0; i < 200000; ++i) w.write_record(record.data(), record.size());
      w.close();
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::broken_pipe);
      message = e.what();
    }
    head.join();
    EXPECT_EQ(message, "cannot write to standard output: Broken pipe.") << "buffer " << buffer;
    EXPECT_THROW(w.close(), Error);
  }
}

TEST_F(IoWriter, WriterThreadMovesWithTheWriter) {
  // Moves while buffers are in flight, and a move onto a writer with
  // buffers in flight of its own (closed first): both files are whole.
  const std::vector<std::string> records = random_records(3, 6000);
  const std::string a = path("a");
  const std::string b = path("b");
  std::string want_a, want_b;
  OutputWriter first = OutputWriter::create(a, 128);
  for (size_t i = 0; i < 2000; ++i) {
    first.write_record(records[i].data(), records[i].size());
    want_a += records[i] + '\n';
  }
  OutputWriter second(std::move(first));
  for (size_t i = 2000; i < 4000; ++i) {
    second.write_record(records[i].data(), records[i].size());
    want_a += records[i] + '\n';
  }
  OutputWriter third = OutputWriter::create(b, 128);
  for (size_t i = 4000; i < 6000; ++i) {
    third.write_record(records[i].data(), records[i].size());
    want_b += records[i] + '\n';
  }
  third = std::move(second);  // b is closed, whole; third writes to a
  EXPECT_TRUE(slurp(b) == want_b);
  third.write_record("end", 3);
  want_a += "end\n";
  EXPECT_EQ(third.bytes_written(), want_a.size());
  EXPECT_EQ(third.name(), a);
  third.close();
  EXPECT_TRUE(slurp(a) == want_a);
  EXPECT_EQ(first.name(), "");
}

TEST_F(IoWriter, WritesAfterCloseAreAnErrorNotAHang) {
  // The writer thread has ended at close(): a later write that fills the
  // buffer must not wait for it.
  const std::string out = path("out");
  OutputWriter w = OutputWriter::create(out, 16);
  for (int i = 0; i < 100; ++i) w.write_record("0123456789", 10);
  w.close();
  EXPECT_THROW(
      {
        for (int i = 0; i < 100; ++i) w.write_record("0123456789", 10);
      },
      Error);
  EXPECT_NO_THROW(w.close());
  EXPECT_EQ(slurp(out).size(), 1100u);
}

TEST_F(IoWriter, WriterThreadEndsWithTheWriterOnAnException) {
  // A job that throws between records leaves through the destructor,
  // which writes what is buffered and in flight and joins the thread.
  const std::vector<std::string> records = random_records(4, 5000);
  const std::string out = path("out");
  std::string want;
  try {
    OutputWriter w = OutputWriter::create(out, 100);
    for (const auto& r : records) {
      w.write_record(r.data(), r.size());
      want += r + '\n';
    }
    throw std::runtime_error("the job failed");
  } catch (const std::runtime_error&) {
  }
  EXPECT_TRUE(slurp(out) == want);
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
