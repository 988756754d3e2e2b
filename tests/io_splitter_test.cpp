// The record splitter against a trivially correct reference split, over
// random inputs, random read sizes and random batch limits, plus the edge
// cases the contract names.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>
#include <unistd.h>

#include "gdedup/error.h"
#include "io/byte_source.h"
#include "io/multi_source.h"
#include "io/record_reader.h"
#include "test_util.h"

namespace gdedup::io {
namespace {

// Serves a string in chunks of random size (1..max_chunk), then optionally
// fails: a stand-in for pipes, short reads and damaged streams.
class ChunkedSource final : public ByteSource {
 public:
  ChunkedSource(std::string data, size_t max_chunk, uint64_t seed, bool fail_at_end = false)
      : data_(std::move(data)), max_chunk_(max_chunk), rng_(seed), fail_(fail_at_end) {}
  size_t read(char* buf, size_t capacity) override {
    if (pos_ == data_.size()) {
      if (fail_) throw Error(name_ + ": stream is damaged at compressed byte offset 7.");
      return 0;
    }
    size_t n = std::min({capacity, data_.size() - pos_,
                         std::uniform_int_distribution<size_t>(1, max_chunk_)(rng_)});
    std::copy_n(data_.data() + pos_, n, buf);
    pos_ += n;
    return n;
  }
  const std::string& name() const override { return name_; }
  uint64_t raw_bytes_read() const override { return pos_; }
  std::optional<uint64_t> raw_size() const override { return data_.size(); }

 private:
  std::string data_;
  size_t max_chunk_;
  std::mt19937_64 rng_;
  bool fail_;
  size_t pos_ = 0;
  std::string name_ = "test input";
};

using test::reference_split;

// Reads everything, checking the batch limits and positions on the way.
std::vector<std::string> read_all(RecordReader& reader, const ReaderOptions& opt) {
  std::vector<std::string> out;
  RecordBatch batch;
  uint64_t records = 0;
  uint64_t offset = 0;
  while (reader.next(batch)) {
    EXPECT_FALSE(batch.empty());
    EXPECT_LE(batch.size(), opt.batch_records);
    EXPECT_EQ(batch.begin().records, records);
    EXPECT_EQ(batch.begin().offset, offset);
    uint64_t bytes = 0;
    for (size_t i = 0; i < batch.size(); ++i) {
      out.emplace_back(batch[i]);
      bytes += batch[i].size();
    }
    records += batch.size();
    EXPECT_EQ(batch.end().records, records);
    // Each record and its '\n', but the stream's last record may lack one.
    EXPECT_GE(batch.end().offset - offset, bytes + batch.size() - 1);
    EXPECT_LE(batch.end().offset - offset, bytes + batch.size());
    offset = batch.end().offset;
  }
  EXPECT_TRUE(batch.empty());
  EXPECT_FALSE(reader.next(batch));  // stays ended
  EXPECT_EQ(reader.position().records, records);
  return out;
}

// Records end at `separator`; the other of '\n' and NUL is among the bytes
// records hold.
std::string random_input(std::mt19937_64& rng, char separator = '\n') {
  static const char kSpecial[] = {'\r', '\0', '\n', '\t', '\x80', '\xff', '\xc3', ' '};
  std::string s;
  size_t lines = std::uniform_int_distribution<size_t>(0, 300)(rng);
  for (size_t l = 0; l < lines; ++l) {
    size_t len;
    switch (rng() % 4) {
      case 0: len = 0; break;
      case 1: len = rng() % 4; break;
      case 2: len = rng() % 80; break;
      default: len = rng() % 400; break;
    }
    for (size_t i = 0; i < len; ++i) {
      uint64_t r = rng();
      char c;
      if (r % 5 == 0) {
        c = kSpecial[(r >> 8) % sizeof kSpecial];
      } else {
        c = static_cast<char>((r >> 8) % 256);
      }
      s.push_back(c == separator ? 'n' : c);
    }
    s.push_back(separator);
  }
  // Half the inputs end without the final separator.
  if (!s.empty() && rng() % 2 == 0) s.pop_back();
  return s;
}

TEST(IoSplitter, RandomInputsMatchReferenceSplit) {
  std::mt19937_64 rng(20240531);
  for (int round = 0; round < 600; ++round) {
    // Two rounds of every six NUL-separated (-z), the rest lines.
    const char separator = round % 6 < 2 ? '\0' : '\n';
    std::string input = random_input(rng, separator);
    ReaderOptions opt;
    opt.separator = separator;
    switch (round % 3) {
      case 0: opt.batch_bytes = 1 + rng() % 17; break;  // tiny: every record spans reads
      case 1: opt.batch_bytes = 1 + rng() % 4096; break;
      default: opt.batch_bytes = size_t{1} << 20; break;
    }
    opt.batch_records = rng() % 2 ? 1 + rng() % 7 : size_t{1} << 20;
    size_t max_chunk = 1 + rng() % (round % 2 ? 5 : 70000);
    RecordReader reader(std::make_unique<ChunkedSource>(input, max_chunk, rng()), opt);
    std::vector<std::string> got = read_all(reader, opt);
    std::vector<std::string> want = reference_split(input, separator);
    ASSERT_EQ(got, want) << "round " << round << " batch_bytes " << opt.batch_bytes
                         << " batch_records " << opt.batch_records;
    EXPECT_EQ(reader.position().offset, input.size());
    // Joined with the separator the records give back the input, modulo the
    // last separator.
    std::string joined;
    for (const auto& r : got) joined += r + separator;
    if (!input.empty() && input.back() != separator) joined.pop_back();
    ASSERT_EQ(joined, input) << "round " << round;
  }
}

std::vector<std::string> split(const std::string& input, ReaderOptions opt = {}) {
  RecordReader reader(std::make_unique<ChunkedSource>(input, 3, 1), opt);
  return read_all(reader, opt);
}

TEST(IoSplitter, EmptyInputHasNoRecords) {
  EXPECT_TRUE(split("").empty());
}

TEST(IoSplitter, EmptyLinesAreRecords) {
  EXPECT_EQ(split("\n"), std::vector<std::string>{""});
  EXPECT_EQ(split("\n\n"), (std::vector<std::string>{"", ""}));
  EXPECT_EQ(split("a\n\nb\n"), (std::vector<std::string>{"a", "", "b"}));
}

TEST(IoSplitter, FinalLineWithoutNewlineIsARecord) {
  EXPECT_EQ(split("a\nbc"), (std::vector<std::string>{"a", "bc"}));
}

TEST(IoSplitter, CarriageReturnsAndNulsStayInRecords) {
  std::string nul("x\0y", 3);
  EXPECT_EQ(split("a\r\nb\r\n" + nul + "\n"), (std::vector<std::string>{"a\r", "b\r", nul}));
  EXPECT_EQ(split("\r"), std::vector<std::string>{"\r"});
}

TEST(IoSplitter, RecordsLongerThanTheBatchGrowIt) {
  ReaderOptions opt;
  opt.batch_bytes = 16;
  std::string big(1000, 'q');
  EXPECT_EQ(split("ab\n" + big + "\ncd", opt), (std::vector<std::string>{"ab", big, "cd"}));
}

TEST(IoSplitter, HundredMegabyteRecordFromAFile) {
  auto dir = std::filesystem::temp_directory_path() /
             ("io_splitter_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string path = (dir / "big.txt").string();
  std::string big(100u << 20, '\0');
  std::mt19937_64 rng(7);
  for (auto& c : big) c = static_cast<char>('a' + rng() % 26);
  {
    std::ofstream f(path, std::ios::binary);
    f << "first\n" << big << "\nlast\n";
  }
  ReaderOptions opt;
  opt.max_record_bytes = big.size();  // past the default limit, and exactly at this one
  RecordReader reader(MultiSource(std::vector<std::string>{path}), opt);
  RecordBatch batch;
  std::vector<std::string> got;
  while (reader.next(batch)) {
    for (size_t i = 0; i < batch.size(); ++i) got.emplace_back(batch[i]);
  }
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0], "first");
  EXPECT_TRUE(got[1] == big);
  EXPECT_EQ(got[2], "last");
  EXPECT_EQ(reader.position().offset, big.size() + 12);
  std::filesystem::remove_all(dir);
}

// Against the reference split: every record up to the first one longer than
// the limit comes out, then the error names that record and where it starts.
TEST(IoSplitter, ARecordLongerThanTheLimitStopsTheReadingThere) {
  std::mt19937_64 rng(88);
  for (int round = 0; round < 300; ++round) {
    std::string input = random_input(rng);
    ReaderOptions opt;
    opt.max_record_bytes = 1 + rng() % 300;
    opt.batch_bytes = round % 2 ? 1 + rng() % 40 : size_t{1} << 16;
    opt.batch_records = rng() % 2 ? 1 + rng() % 7 : size_t{1} << 20;
    const std::vector<std::string> all = reference_split(input);
    size_t first_long = 0;
    uint64_t offset = 0;
    while (first_long < all.size() && all[first_long].size() <= opt.max_record_bytes) {
      offset += all[first_long++].size() + 1;
    }
    RecordReader reader(std::make_unique<ChunkedSource>(input, 1 + rng() % 50, rng()), opt);
    RecordBatch batch;
    std::vector<std::string> got;
    std::string error;
    try {
      while (reader.next(batch)) {
        for (size_t i = 0; i < batch.size(); ++i) got.emplace_back(batch[i]);
      }
    } catch (const Error& e) {
      error = e.what();
    }
    ASSERT_EQ(got, std::vector<std::string>(all.begin(), all.begin() + first_long))
        << "round " << round << ", limit " << opt.max_record_bytes;
    if (first_long == all.size()) {
      EXPECT_EQ(error, "") << "round " << round;
      continue;
    }
    EXPECT_EQ(error, "test input: record " + std::to_string(first_long + 1) + " (at byte offset " +
                         std::to_string(offset) + ") is longer than the record length limit of " +
                         std::to_string(opt.max_record_bytes) +
                         " bytes without a newline; raise the limit if "
                         "such records are real, or check that the input is text with one "
                         "record per line.")
        << "round " << round;
    EXPECT_THROW(reader.next(batch), Error);  // the failure stays
  }
}

// A stream with no newline at all is refused once the limit is passed: the
// buffer never grows past the limit, whatever the stream's length.
TEST(IoSplitter, EndlessRecordIsRefusedAtTheLimit) {
  class Zeros final : public ByteSource {
   public:
    size_t read(char* buf, size_t capacity) override {
      std::memset(buf, 0, capacity);
      read_ += capacity;
      return capacity;
    }
    const std::string& name() const override { return name_; }
    uint64_t raw_bytes_read() const override { return read_; }
    std::optional<uint64_t> raw_size() const override { return std::nullopt; }
    uint64_t read_ = 0;
    std::string name_ = "zeros";
  };
  auto zeros = std::make_unique<Zeros>();
  const Zeros* source = zeros.get();
  ReaderOptions opt;
  opt.batch_bytes = 4096;
  opt.max_record_bytes = 1 << 20;
  RecordReader reader(std::move(zeros), opt);
  RecordBatch batch;
  EXPECT_THROW(reader.next(batch), Error);
  EXPECT_LE(source->read_, (2u << 20) + (1u << 20));
}

TEST(IoSplitter, SeveralInputsKeepTheirLastLinesApart) {
  std::vector<std::unique_ptr<ByteSource>> inputs;
  inputs.push_back(std::make_unique<ChunkedSource>("a\nb", 2, 1));
  inputs.push_back(std::make_unique<ChunkedSource>("", 2, 2));
  inputs.push_back(std::make_unique<ChunkedSource>("c\n", 2, 3));
  inputs.push_back(std::make_unique<ChunkedSource>("\nd", 2, 4));
  ReaderOptions opt;
  opt.batch_records = 2;
  RecordReader reader(MultiSource(std::move(inputs)), opt);
  EXPECT_EQ(read_all(reader, opt), (std::vector<std::string>{"a", "b", "c", "", "d"}));
  // "a\nb" + "c\n" + "\nd": 3 + 2 + 2 bytes.
  EXPECT_EQ(reader.position().offset, 7u);
  EXPECT_EQ(reader.position().input_index, 4u);
}

TEST(IoSplitter, PositionNamesTheInputAndOffsetWithinIt) {
  std::vector<std::unique_ptr<ByteSource>> inputs;
  inputs.push_back(std::make_unique<ChunkedSource>("aa\nbb\n", 100, 1));
  inputs.push_back(std::make_unique<ChunkedSource>("c\nd\ne\n", 100, 2));
  ReaderOptions opt;
  opt.batch_records = 3;
  RecordReader reader(MultiSource(std::move(inputs)), opt);
  RecordBatch batch;
  ASSERT_TRUE(reader.next(batch));  // aa bb c
  EXPECT_EQ(batch.end().records, 3u);
  EXPECT_EQ(batch.end().offset, 8u);
  EXPECT_EQ(batch.end().input_index, 1u);
  EXPECT_EQ(batch.end().input_offset, 2u);
  ASSERT_TRUE(reader.next(batch));  // d e
  EXPECT_EQ(batch.size(), 2u);
  EXPECT_EQ(batch.begin().input_offset, 2u);
  EXPECT_EQ(batch.end().offset, 12u);
  EXPECT_EQ(batch.end().input_index, 2u);  // all inputs done
  EXPECT_FALSE(reader.next(batch));
}

TEST(IoSplitter, RecordsBeforeAFailureComeFirstThenTheError) {
  ReaderOptions opt;
  opt.batch_bytes = 1 << 16;
  RecordReader reader(std::make_unique<ChunkedSource>("one\ntwo\nthr", 4, 1, true), opt);
  RecordBatch batch;
  std::vector<std::string> got;
  try {
    while (reader.next(batch)) {
      for (size_t i = 0; i < batch.size(); ++i) got.emplace_back(batch[i]);
    }
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("offset 7"), std::string::npos);
  }
  // The cut-off "thr" is not handed out as a record.
  EXPECT_EQ(got, (std::vector<std::string>{"one", "two"}));
  EXPECT_THROW(reader.next(batch), Error);  // and the failure stays
  EXPECT_EQ(reader.position().records, 2u);
}

TEST(IoSplitter, ZeroLimitsAreRefused) {
  ReaderOptions opt;
  opt.batch_records = 0;
  EXPECT_THROW(RecordReader(std::make_unique<ChunkedSource>("", 1, 1), opt), UsageError);
}

}  // namespace
}  // namespace gdedup::io

namespace gdedup::io {
namespace {

std::unique_ptr<ByteSource> chunked(const std::string& s) {
  return std::make_unique<ChunkedSource>(s, 5, 9);
}

TEST(IoSplitter, SkipToAPositionResumesAtTheSameRecord) {
  std::mt19937_64 rng(5);
  for (int round = 0; round < 50; ++round) {
    std::string a = random_input(rng);
    std::string b = random_input(rng);
    auto make = [&] {
      std::vector<std::unique_ptr<ByteSource>> in;
      in.push_back(chunked(a));
      in.push_back(chunked(b));
      ReaderOptions opt;
      opt.batch_records = 1 + rng() % 40;
      opt.batch_bytes = 1 + rng() % 3000;
      return RecordReader(MultiSource(std::move(in)), opt);
    };
    // A first run stops after a few batches and remembers where it was.
    RecordReader first = make();
    RecordBatch batch;
    std::vector<std::string> all;
    std::vector<StreamPoint> ends{StreamPoint{}};
    while (first.next(batch)) {
      for (size_t i = 0; i < batch.size(); ++i) all.emplace_back(batch[i]);
      ends.push_back(batch.end());
    }
    StreamPoint stop = ends[rng() % ends.size()];
    // A second run, with other batch sizes, skips to it and reads the rest.
    RecordReader second = make();
    second.skip_to(stop);
    std::vector<std::string> rest;
    while (second.next(batch)) {
      EXPECT_EQ(batch.begin().records, stop.records + rest.size());
      for (size_t i = 0; i < batch.size(); ++i) rest.emplace_back(batch[i]);
    }
    ASSERT_EQ(rest, std::vector<std::string>(all.begin() + stop.records, all.end()))
        << "round " << round;
  }
}

TEST(IoSplitter, SkipToRefusesAnotherInput) {
  StreamPoint p;
  p.records = 2;
  p.offset = 6;  // "abc\nd\n" has its second record end at 6, "ab\nd\n" at 5
  p.input_offset = 6;
  RecordReader same(chunked("abc\nd\nrest\n"));
  EXPECT_NO_THROW(same.skip_to(p));
  RecordBatch batch;
  ASSERT_TRUE(same.next(batch));
  EXPECT_EQ(batch[0], "rest");
  RecordReader other(chunked("ab\nd\nrest\n"));
  EXPECT_THROW(other.skip_to(p), Error);
  RecordReader shorter(chunked("abc\n"));
  EXPECT_THROW(shorter.skip_to(p), Error);
}

}  // namespace
}  // namespace gdedup::io
