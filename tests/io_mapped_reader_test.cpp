// RecordReader's zero-copy reading of plain files (ReaderOptions::
// min_mapped_bytes): the same records, positions and failures as reading
// the same files through read(2), with any batch limits and any mix of
// mapped and read inputs; a file truncated while mapped fails as a file
// changed while read, without SIGBUS ending the process and without a
// record read from the lost pages; pages behind the reader leave memory.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "file_util.h"
#include "fs/file_ops.h"
#include "gdedup/error.h"
#include "io/fd_source.h"
#include "io/mapped_bytes.h"
#include "io/multi_source.h"
#include "io/range_source.h"
#include "io/record_reader.h"
#include "test_util.h"

namespace gdedup::io {
namespace {

constexpr uint64_t kNever = UINT64_MAX;

class MappedReaderTest : public test::TempDirTest {
 protected:
  MappedReaderTest() : TempDirTest("gdedup_mapped") {}
  std::string write_file(const std::string& name, const std::string& bytes) {
    std::ofstream(path(name), std::ios::binary) << bytes;
    return path(name);
  }
};

// Records of every shape: empty ones, short and long ones (some longer than
// a batch), bytes a record may hold; with or without a last separator.
std::string records_text(size_t count, uint64_t seed, bool open_end) {
  test::Rng rng(seed);
  std::string s;
  for (size_t i = 0; i < count; ++i) {
    switch (rng.below(10)) {
      case 0: break;
      case 1: s += std::string(100 + rng.below(3000), static_cast<char>('a' + rng.below(3))); break;
      case 2: s += std::string("\r\0\x80\xff", 4); break;
      default: s += "https://h" + std::to_string(rng.below(50)) + ".example/" +
                    std::to_string(rng.next());
    }
    s += '\n';
  }
  if (open_end) s += "last-without-newline";
  return s;
}

struct Reading {
  std::vector<std::string> records;
  std::vector<StreamPoint> ends;  // each batch's end
  StreamPoint end;
  std::string error;
  size_t mapped_batches = 0;
  size_t batches = 0;
};

Reading read_all(const std::vector<std::string>& paths, ReaderOptions options,
                 const StreamPoint* skip_to = nullptr) {
  Reading r;
  try {
    RecordReader reader(MultiSource(paths), options);
    if (skip_to != nullptr) reader.skip_to(*skip_to);
    RecordBatch batch;
    while (reader.next(batch)) {
      EXPECT_LE(batch.size(), options.batch_records);
      EXPECT_EQ(batch.begin().records + batch.size(), batch.end().records);
      for (size_t i = 0; i < batch.size(); ++i) r.records.emplace_back(batch[i]);
      r.ends.push_back(batch.end());
      r.mapped_batches += batch.mapped() ? 1 : 0;
      ++r.batches;
    }
    r.end = reader.position();
  } catch (const Error& e) {
    r.error = e.what();
  }
  return r;
}

// Where two readings part, for a message short enough to read.
std::string first_difference(const std::vector<std::string>& got,
                             const std::vector<std::string>& want) {
  size_t i = 0;
  while (i < got.size() && i < want.size() && got[i] == want[i]) ++i;
  if (i == got.size() && i == want.size()) return "";
  return "record " + std::to_string(i) + " of " + std::to_string(got.size()) + " (want " +
         std::to_string(want.size()) + "): " +
         (i < got.size() ? "\"" + got[i].substr(0, 60) + "\"" : "none") + " vs " +
         (i < want.size() ? "\"" + want[i].substr(0, 60) + "\"" : "none");
}

bool same_point(const StreamPoint& a, const StreamPoint& b) {
  return a.records == b.records && a.offset == b.offset && a.input_index == b.input_index &&
         a.input_offset == b.input_offset;
}

TEST_F(MappedReaderTest, MappedAndReadInputsGiveTheSameRecordsAndPositions) {
  std::vector<std::string> texts = {records_text(3000, 1, true), "", "\n",
                                    records_text(40, 2, false), records_text(2000, 3, true),
                                    "one-record-only", records_text(500, 4, false)};
  std::vector<std::string> paths;
  std::vector<std::string> want;
  for (size_t i = 0; i < texts.size(); ++i) {
    paths.push_back(write_file("in" + std::to_string(i), texts[i]));
    for (const std::string& r : test::reference_split(texts[i])) want.push_back(r);
  }
  for (size_t records : {size_t{1}, size_t{7}, size_t{1} << 20}) {
    for (size_t bytes : {size_t{64}, size_t{4096}, size_t{1} << 16}) {
      ReaderOptions options;
      options.batch_records = records;
      options.batch_bytes = bytes;
      options.min_mapped_bytes = kNever;
      const Reading read = read_all(paths, options);
      ASSERT_EQ(read.error, "");
      ASSERT_EQ(first_difference(read.records, want), "");
      ASSERT_EQ(read.mapped_batches, 0u);
      // Every input mapped; the large ones only; none.
      for (uint64_t threshold : {uint64_t{1}, uint64_t{1000}, kNever}) {
        SCOPED_TRACE(std::to_string(records) + " records, " + std::to_string(bytes) +
                     " bytes a batch, mapped from " + std::to_string(threshold) + " bytes");
        options.min_mapped_bytes = threshold;
        const Reading mapped = read_all(paths, options);
        EXPECT_EQ(mapped.error, "");
        EXPECT_EQ(first_difference(mapped.records, want), "");
        EXPECT_TRUE(same_point(mapped.end, read.end));
        EXPECT_EQ(mapped.mapped_batches > 0, threshold != kNever);
        // A resume from any batch's end, read the other way, goes on with
        // the same records.
        for (size_t k = 0; k < mapped.ends.size(); k += 1 + mapped.ends.size() / 5) {
          ReaderOptions other = options;
          other.min_mapped_bytes = threshold == kNever ? 1 : kNever;
          const Reading rest = read_all(paths, other, &mapped.ends[k]);
          ASSERT_EQ(rest.error, "");
          const size_t done = static_cast<size_t>(mapped.ends[k].records);
          EXPECT_EQ(first_difference(rest.records, std::vector<std::string>(want.begin() + done, want.end())), "");
        }
      }
    }
  }
}

// A record longer than the limit fails at the same record with the same
// message, after the same records, however the file is read.
TEST_F(MappedReaderTest, ARecordTooLongFailsAsWhenRead) {
  const std::string text = "a\nbb\n" + std::string(5000, 'x') + "\nc\n" + std::string(300, 'y');
  const std::vector<std::string> paths = {write_file("pre", "p\n"), write_file("in", text)};
  for (uint64_t limit : {uint64_t{200}, uint64_t{4999}, uint64_t{5000}, uint64_t{299}}) {
    for (size_t bytes : {size_t{64}, size_t{1} << 16}) {
      SCOPED_TRACE("limit " + std::to_string(limit) + ", " + std::to_string(bytes) + " bytes");
      ReaderOptions options;
      options.batch_bytes = bytes;
      options.max_record_bytes = limit;
      options.min_mapped_bytes = kNever;
      const Reading read = read_all(paths, options);
      options.min_mapped_bytes = 1;
      const Reading mapped = read_all(paths, options);
      EXPECT_EQ(mapped.error, read.error);
      EXPECT_EQ(first_difference(mapped.records, read.records), "");
      EXPECT_EQ(read.error.empty(), limit == 5000) << read.error;
    }
  }
}

// Truncated after its first batch: no SIGBUS, no record from the zeros that
// stand in for the lost pages, and the error of a file changed while read.
// For a whole file and for a range of one (a piece of the parallel reader).
TEST_F(MappedReaderTest, AFileTruncatedWhileMappedFailsWithoutAStrayRecord) {
  const std::string text = records_text(200000, 5, false);
  ASSERT_GT(text.size(), size_t{8} << 20);
  const std::vector<std::string> want = test::reference_split(text);
  for (bool range : {false, true}) {
    SCOPED_TRACE(range ? "a range" : "a whole file");
    const std::string file = write_file("in", text);
    ReaderOptions options;
    options.batch_bytes = 1 << 16;
    options.min_mapped_bytes = 1;
    FileStamp stamp;
    {
      fs::FileStatus status;
      ASSERT_EQ(fs::status_of_path(file, status), 0);
      stamp = {status.size, status.mtime_ns};
    }
    RecordReader reader =
        range ? RecordReader(std::make_unique<RangeSource>(file, 0, text.size(), stamp), options)
              : RecordReader(MultiSource(std::vector<std::string>{file}), options);
    RecordBatch batch;
    ASSERT_TRUE(reader.next(batch));
    ASSERT_TRUE(batch.mapped());
    std::vector<std::string> got;
    for (size_t i = 0; i < batch.size(); ++i) got.emplace_back(batch[i]);
    ASSERT_EQ(::truncate(file.c_str(), static_cast<off_t>(text.size() / 3)), 0);
    std::string error;
    try {
      while (reader.next(batch)) {
        for (size_t i = 0; i < batch.size(); ++i) got.emplace_back(batch[i]);
      }
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::input_changed);
      error = e.what();
    }
    EXPECT_NE(error.find("input " + file + " changed size while it was being read"),
              std::string::npos)
        << error;
    ASSERT_LE(got.size(), want.size());
    EXPECT_EQ(first_difference(got, std::vector<std::string>(want.begin(), want.begin() + got.size())), "");
  }
}

// A page lost while the file was short, then the file restored with its
// size and time: not a changed file, but bytes that could not be read.
TEST_F(MappedReaderTest, APageLostFromAFileOfUnchangedSizeAndTimeIsAReadError) {
  const std::string text = records_text(20000, 8, false);
  const std::string file = write_file("in", text);
  struct stat before;
  ASSERT_EQ(::stat(file.c_str(), &before), 0);
  std::unique_ptr<FdSource> source = FdSource::open(file);
  std::shared_ptr<MappedBytes> mapped = source->map_rest(1);
  ASSERT_NE(mapped, nullptr);
  ASSERT_EQ(::truncate(file.c_str(), 0), 0);
  volatile char lost = mapped->data()[text.size() / 2];  // SIGBUS, answered with zeros
  EXPECT_EQ(lost, 0);
  EXPECT_TRUE(mapped->cut());
  std::ofstream(file, std::ios::binary) << text;
  const struct timespec times[2] = {before.st_atim, before.st_mtim};
  ASSERT_EQ(::utimensat(AT_FDCWD, file.c_str(), times, 0), 0);
  try {
    source->mapped_to(1000);
    FAIL() << "a cut mapping was read on";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::io);
    EXPECT_NE(std::string(e.what()).find("part of it could not be read through its mapping"),
              std::string::npos)
        << e.what();
  }
}

// The guard answers for its own mappings only: a SIGBUS elsewhere still
// ends the process, as it would without one.
// Killed by SIGBUS; under AddressSanitizer, whose handler was there before
// the guard's, ended by that handler's report instead: an exit status, or
// SIGABRT with abort_on_error (scripts/sanitize.sh).
bool ended_by_bus_error(int status) {
  if (WIFSIGNALED(status)) {
    return WTERMSIG(status) == SIGBUS || (test::kAddressSanitizer && WTERMSIG(status) == SIGABRT);
  }
  return test::kAddressSanitizer && WIFEXITED(status) && WEXITSTATUS(status) != 0 &&
         WEXITSTATUS(status) < 3;
}

TEST_F(MappedReaderTest, ABusErrorOutsideTheReadersMappingsStillEndsTheProcess) {
  const std::string guarded = write_file("guarded", records_text(100000, 6, false));
  ReaderOptions options;
  options.min_mapped_bytes = 1;
  RecordReader reader(MultiSource(std::vector<std::string>{guarded}), options);
  RecordBatch batch;
  ASSERT_TRUE(reader.next(batch));
  ASSERT_TRUE(batch.mapped());
  const std::string other = write_file("other", std::string(1 << 16, 'z'));
  EXPECT_EXIT(
      {
        const int fd = ::open(other.c_str(), O_RDONLY);
        auto* p = static_cast<volatile const char*>(
            ::mmap(nullptr, 1 << 16, PROT_READ, MAP_SHARED, fd, 0));
        if (::truncate(other.c_str(), 0) != 0) std::_Exit(3);
        std::_Exit(p[1 << 15] == 'z' ? 4 : 5);
      },
      ended_by_bus_error, "");
}

uint64_t resident_file_kib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("RssFile:", 0) == 0) return std::stoull(line.substr(8));
  }
  return 0;
}

// A file read through its mapping does not stay resident behind the
// reader: its pages are given back as batches are reused.
TEST_F(MappedReaderTest, PagesBehindTheReaderLeaveMemory) {
  std::string text;
  test::Rng rng(7);
  while (text.size() < (size_t{160} << 20)) text += "https://x.example/" + std::to_string(rng.next()) + "\n";
  const std::string file = write_file("big", text);
  text.clear();
  ReaderOptions options;
  options.min_mapped_bytes = 1;
  RecordReader reader(MultiSource(std::vector<std::string>{file}), options);
  RecordBatch batch;
  const uint64_t before = resident_file_kib();
  uint64_t most = 0;
  while (reader.next(batch)) most = std::max(most, resident_file_kib());
  // Batches of 8 MiB, given back in steps of 32 MiB: about 40 MiB at most,
  // against 160 MiB were the pages kept.
  EXPECT_LT(most - std::min(most, before), uint64_t{80} << 10) << most << " KiB, " << before;
}

}  // namespace
}  // namespace gdedup::io
