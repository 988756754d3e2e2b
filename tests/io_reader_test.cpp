// Byte sources: plain files, standard input, gzip and zstd (one member or
// frame and several), format detection by content, damaged streams and
// unreadable paths.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "codec_util.h"
#include "gdedup/error.h"
#include "io/byte_source.h"
#include "io/fd_source.h"
#include "io/input_file.h"
#include "io/multi_source.h"
#include "io/record_reader.h"
#include "piece_source.h"
#include "test_util.h"

namespace gdedup::io {
namespace {

namespace fs = std::filesystem;

class IoReader : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("io_reader_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& bytes) {
    std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }

  fs::path dir_;
};

using test::gzip;
using test::zstd;

// Lines of URL-like text with the bytes the contract says must pass through.
std::string sample(uint64_t seed, size_t lines) {
  std::mt19937_64 rng(seed);
  std::string s;
  for (size_t i = 0; i < lines; ++i) {
    s += "https://host" + std::to_string(rng() % 1000) + ".example/";
    size_t len = rng() % 60;
    for (size_t j = 0; j < len; ++j) {
      uint64_t r = rng();
      s.push_back(r % 17 == 0 ? "\r\0\x80\xff"[(r >> 8) % 4] : static_cast<char>('a' + r % 26));
    }
    s.push_back('\n');
  }
  return s;
}

std::string drain(ByteSource& src, size_t chunk = 65536) {
  std::string out;
  std::vector<char> buf(chunk);
  while (size_t n = src.read(buf.data(), buf.size())) out.append(buf.data(), n);
  EXPECT_EQ(src.read(buf.data(), buf.size()), 0u);  // stays ended
  return out;
}

std::vector<std::string> records_of(MultiSource source, std::string* error = nullptr) {
  ReaderOptions opt;
  opt.batch_bytes = 1 << 16;  // many batches even for small inputs
  RecordReader reader(std::move(source), opt);
  RecordBatch batch;
  std::vector<std::string> out;
  try {
    while (reader.next(batch)) {
      for (size_t i = 0; i < batch.size(); ++i) out.emplace_back(batch[i]);
    }
  } catch (const Error& e) {
    if (error == nullptr) throw;
    *error = e.what();
  }
  return out;
}

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::string line;
  std::istringstream in(s);
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

TEST_F(IoReader, DetectsFormatByMagicBytes) {
  EXPECT_EQ(detect_compression("\x1f\x8b\x08\x00", 4), Compression::gzip);
  EXPECT_EQ(detect_compression("\x28\xb5\x2f\xfd", 4), Compression::zstd);
  EXPECT_EQ(detect_compression("\x28\xb5\x2f", 3), Compression::none);
  EXPECT_EQ(detect_compression("\x1f", 1), Compression::none);
  EXPECT_EQ(detect_compression("http", 4), Compression::none);
}

TEST_F(IoReader, PlainGzipAndZstdGiveTheSameBytes) {
  std::string plain = sample(1, 50000);
  std::string half1 = plain.substr(0, plain.size() / 3);
  std::string half2 = plain.substr(plain.size() / 3);
  // Names that lie: detection looks at the content only.
  std::vector<std::string> paths = {
      write("plain.gz", plain),
      write("one-member.txt", gzip(plain)),
      write("two-members", gzip(half1, 1) + gzip(half2, 9)),
      write("one-frame.gz", zstd(plain)),
      write("two-frames", zstd(half1) + zstd(half2, true)),
  };
  for (const auto& path : paths) {
    auto src = open_input(path);
    EXPECT_EQ(src->name(), path);
    for (size_t chunk : {size_t{1} << 20, size_t{7}}) {
      if (chunk == 7) src = open_input(path);
      ASSERT_TRUE(drain(*src, chunk) == plain) << path << " in chunks of " << chunk;
      EXPECT_EQ(src->raw_bytes_read(), fs::file_size(path)) << path;
      EXPECT_EQ(src->raw_size(), fs::file_size(path)) << path;
    }
  }
}

TEST_F(IoReader, CompressedInputsGiveTheSameRecords) {
  std::string text = sample(2, 20000) + "no newline at the end";
  std::vector<std::string> want = lines_of(text);
  for (const std::string& bytes : {text, gzip(text), zstd(text)}) {
    std::string path = write("in", bytes);
    EXPECT_EQ(records_of(MultiSource({path})), want);
  }
}

TEST_F(IoReader, EmptyAndTinyFiles) {
  EXPECT_TRUE(records_of(MultiSource({write("empty", "")})).empty());
  EXPECT_EQ(records_of(MultiSource({write("one", "a")})), std::vector<std::string>{"a"});
  EXPECT_EQ(records_of(MultiSource({write("gz-empty", gzip(""))})).size(), 0u);
  EXPECT_EQ(records_of(MultiSource({write("zst-empty", zstd(""))})).size(), 0u);
}

TEST_F(IoReader, SeveralInputsOfMixedFormatsAsOneStream) {
  std::vector<std::string> paths = {write("a.gz", gzip("a1\na2")), write("b", "b1\n"),
                                    write("c.zst", zstd("c1\nc2")), write("d", "")};
  MultiSource multi(paths);
  EXPECT_EQ(multi.raw_size(), fs::file_size(paths[0]) + fs::file_size(paths[1]) +
                                  fs::file_size(paths[2]));
  EXPECT_EQ(records_of(std::move(multi)),
            (std::vector<std::string>{"a1", "a2", "b1", "c1", "c2"}));
}

TEST_F(IoReader, StandardInputIsDetectedToo) {
  std::string text = sample(3, 1000);
  std::string path = write("stdin.gz", gzip(text));
  int saved = ::dup(STDIN_FILENO);
  int fd = ::open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  ::dup2(fd, STDIN_FILENO);
  ::close(fd);
  std::string got;
  {
    auto src = open_input("-");
    EXPECT_EQ(src->name(), "standard input");
    got = drain(*src);
  }
  ::dup2(saved, STDIN_FILENO);
  ::close(saved);
  EXPECT_TRUE(got == text);
}

TEST_F(IoReader, PipesDeliveringTheMagicInPiecesAreDetected) {
  std::string text = sample(4, 5000);
  std::string z = zstd(text);
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  std::thread writer([&] {
    // One byte, then the rest: detection must not take a short read as all.
    (void)!::write(fds[1], z.data(), 1);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    (void)!::write(fds[1], z.data() + 1, z.size() - 1);
    ::close(fds[1]);
  });
  auto src = wrap_decoder(std::make_unique<FdSource>(fds[0], "pipe", true));
  std::string got = drain(*src);
  writer.join();
  EXPECT_TRUE(got == text);
  EXPECT_FALSE(src->raw_size().has_value());
}

// Truncation: records complete before the cut are delivered, in order, and
// then the error names the offset where the data stops.
void expect_truncation(const std::string& path, uint64_t size, const std::string& text,
                       const char* format) {
  std::string error;
  std::vector<std::string> got = records_of(MultiSource({path}), &error);
  std::vector<std::string> want = lines_of(text);
  ASSERT_GT(got.size(), 0u) << format;
  ASSERT_LT(got.size(), want.size()) << format;
  EXPECT_TRUE(std::equal(got.begin(), got.end(), want.begin())) << format;
  EXPECT_EQ(error, path + ": " + format +
                       " stream ends early (truncated) at compressed byte offset " +
                       std::to_string(size) + ".");
}

TEST_F(IoReader, TruncatedGzipDeliversWhatCameBeforeThenFails) {
  std::string text = sample(5, 100000);
  std::string z = gzip(text);
  std::string cut = z.substr(0, z.size() / 2);
  expect_truncation(write("cut.gz", cut), cut.size(), text, "gzip");
  // Cut inside the 8-byte trailer: all the data, then the error.
  std::string no_trailer = z.substr(0, z.size() - 3);
  std::string error;
  auto got = records_of(MultiSource({write("cut2.gz", no_trailer)}), &error);
  EXPECT_EQ(got, lines_of(text));
  EXPECT_NE(error.find("ends early (truncated) at compressed byte offset " +
                       std::to_string(no_trailer.size())),
            std::string::npos);
  // Only the magic.
  records_of(MultiSource({write("magic.gz", "\x1f\x8b")}), &error);
  EXPECT_NE(error.find("truncated) at compressed byte offset 2."), std::string::npos) << error;
}

TEST_F(IoReader, TruncatedZstdDeliversWhatCameBeforeThenFails) {
  std::string text = sample(6, 100000);
  std::string z = zstd(text);
  std::string cut = z.substr(0, z.size() / 2);
  expect_truncation(write("cut.zst", cut), cut.size(), text, "zstd");
  std::string error;
  records_of(MultiSource({write("magic.zst", "\x28\xb5\x2f\xfd")}), &error);
  EXPECT_NE(error.find("truncated) at compressed byte offset 4."), std::string::npos) << error;
}

TEST_F(IoReader, CorruptGzipMemberAfterAGoodOne) {
  std::string good = sample(7, 20000);
  std::string bad = sample(8, 20000);
  std::string first = gzip(good);
  std::string second = gzip(bad);
  for (int where : {0, 1, 2000}) {  // header magic, header, deflate data
    std::string damaged = second;
    for (int i = 0; i < 16; ++i) damaged[where + i] ^= 0x5a;
    std::string path = write("bad.gz", first + damaged);
    std::string error;
    auto got = records_of(MultiSource({path}), &error);
    // Every record of the good member comes first.
    ASSERT_GE(got.size(), lines_of(good).size()) << where;
    auto want = lines_of(good);
    EXPECT_TRUE(std::equal(want.begin(), want.end(), got.begin()));
    EXPECT_EQ(error.rfind(path + ": gzip stream is damaged at compressed byte offset ", 0), 0u)
        << error;
    uint64_t offset = std::stoull(error.substr(error.find("offset ") + 7));
    EXPECT_GE(offset, first.size()) << error;
    EXPECT_LE(offset, first.size() + second.size()) << error;
    EXPECT_NE(error.find(" ("), std::string::npos) << error;  // zlib's reason
  }
}

TEST_F(IoReader, CorruptZstdFrameAfterAGoodOne) {
  std::string good = sample(9, 20000);
  std::string first = zstd(good, true);
  std::string second = zstd(sample(10, 20000), true);
  for (size_t where : {size_t{0}, second.size() / 2}) {  // frame magic, block data
    std::string damaged = second;
    for (int i = 0; i < 16; ++i) damaged[where + i] ^= 0x5a;
    std::string path = write("bad.zst", first + damaged);
    std::string error;
    auto got = records_of(MultiSource({path}), &error);
    ASSERT_GE(got.size(), lines_of(good).size()) << where;
    auto want = lines_of(good);
    EXPECT_TRUE(std::equal(want.begin(), want.end(), got.begin()));
    EXPECT_EQ(error.rfind(path + ": zstd stream is damaged at compressed byte offset ", 0), 0u)
        << error;
    uint64_t offset = std::stoull(error.substr(error.find("offset ") + 7));
    EXPECT_GE(offset, first.size()) << error;
    EXPECT_LE(offset, first.size() + second.size()) << error;
  }
}

// Batches say how many records have passed their member's or frame's check:
// with a damaged second member, exactly the first member's records, never
// more, however the batches fall.
TEST_F(IoReader, BatchesCountTheRecordsWhoseChecksPassed) {
  const std::string good = sample(31, 20000), bad = sample(32, 20000);
  const size_t good_records = lines_of(good).size();
  for (const bool zstd_frames : {false, true}) {
    std::string second = zstd_frames ? zstd(bad, true) : gzip(bad);
    second[second.size() / 2] ^= 0x55;
    const std::string path =
        write("two", (zstd_frames ? zstd(good, true) : gzip(good)) + second);
    for (size_t batch_records : {size_t{1}, size_t{999}, size_t{1} << 20}) {
      ReaderOptions opt;
      opt.batch_bytes = 1 << 14;
      opt.batch_records = batch_records;
      RecordReader reader(MultiSource({path}), opt);
      RecordBatch batch;
      uint64_t verified = 0;
      try {
        while (reader.next(batch)) {
          EXPECT_LE(batch.verified_records(), batch.end().records);
          verified = std::max(verified, batch.verified_records());
        }
        ADD_FAILURE() << "no error";
      } catch (const DamagedData&) {
      }
      EXPECT_EQ(verified, good_records) << zstd_frames << " batches of " << batch_records;
    }
  }
  // Plain input has no checks: every batch is verified to its end.
  RecordReader plain(MultiSource({write("plain", good)}));
  RecordBatch batch;
  while (plain.next(batch)) EXPECT_EQ(batch.verified_records(), batch.end().records);
}

TEST_F(IoReader, TrailingGarbageAfterGzipIsDamage) {
  std::string path = write("junk.gz", gzip("a\nb\n") + "junk");
  std::string error;
  auto got = records_of(MultiSource({path}), &error);
  EXPECT_EQ(got, (std::vector<std::string>{"a", "b"}));
  EXPECT_NE(error.find("gzip stream is damaged"), std::string::npos) << error;
}

// Reads a decoder over `bytes` in `piece`-byte raw reads and `chunk`-byte
// decoded reads; returns what came out, and the error, if any, in *error.
std::string decode_in_pieces(const std::string& bytes, size_t piece, size_t chunk,
                             std::string* error) {
  auto src = wrap_decoder(std::make_unique<test::PieceSource>(bytes, piece));
  std::string out;
  std::vector<char> buf(chunk);
  try {
    while (size_t n = src->read(buf.data(), buf.size())) out.append(buf.data(), n);
  } catch (const Error& e) {
    *error = e.what();
  }
  return out;
}

TEST_F(IoReader, GzipMembersSplitAcrossTinyReads) {
  // Members of every kind back to back: stored blocks (level 0), fast and
  // best compression, an empty member, a one-byte member.
  std::vector<std::string> parts = {sample(11, 300), sample(12, 2000), "", "x",
                                    sample(13, 1500)};
  std::string want, gz;
  int levels[] = {0, 1, 9, 6, 6};
  for (size_t i = 0; i < parts.size(); ++i) {
    want += parts[i];
    gz += gzip(parts[i], levels[i]);
  }
  for (size_t piece : {size_t{1}, size_t{2}, size_t{3}, size_t{7}, size_t{4096}}) {
    for (size_t chunk : {size_t{1}, size_t{13}, size_t{65536}}) {
      if (piece == 1 && chunk == 1) continue;  // slow, and 1x13 covers it
      std::string error;
      std::string got = decode_in_pieces(gz, piece, chunk, &error);
      EXPECT_EQ(error, "") << piece << "/" << chunk;
      ASSERT_TRUE(got == want) << "raw reads of " << piece << ", decoded reads of " << chunk;
    }
  }
}

TEST_F(IoReader, LargeGzipMembers) {
  // Members far larger than the 1 MiB compressed reads and the decoded
  // reads, so that both run out mid-block over and over.
  std::string a = sample(14, 300000), b = sample(15, 200000);
  std::string gz = gzip(a, 1) + gzip(b, 9) + gzip(a, 0);
  std::string want = a + b + a;
  std::string path = write("large.gz", gz);
  for (size_t chunk : {size_t{8} << 20, size_t{65521}}) {
    auto src = open_input(path);
    ASSERT_TRUE(drain(*src, chunk) == want) << chunk;
    EXPECT_EQ(src->raw_bytes_read(), gz.size());
  }
}

TEST_F(IoReader, DamagedGzipAtManyOffsetsFailsAfterTheGoodMember) {
  std::string good = sample(16, 5000);
  std::string first = gzip(good);
  std::string second = gzip(sample(17, 5000));
  // Header bytes that are checked (magic, method), deflate data from start
  // to end, and the trailer's CRC-32 and length. Not MTIME, XFL or OS:
  // damage there is harmless by design. Under AddressSanitizer (22 s for
  // 23 places in the deflate data there) 6 of them, spread as far: every
  // header and trailer byte still.
  std::vector<size_t> offsets = {0, 1, 2};
  const size_t data_places = test::kAddressSanitizer ? 6 : 23;
  for (size_t at = 10; at < second.size() - 8; at += second.size() / data_places) {
    offsets.push_back(at);
  }
  for (size_t at = second.size() - 8; at < second.size(); ++at) offsets.push_back(at);
  for (size_t piece : {size_t{5}, size_t{1} << 20}) {
    for (size_t at : offsets) {
      std::string damaged = second;
      damaged[at] ^= 0x24;
      std::string error;
      std::string got = decode_in_pieces(first + damaged, piece, 65536, &error);
      ASSERT_GE(got.size(), good.size()) << at;
      EXPECT_TRUE(got.compare(0, good.size(), good) == 0) << at;
      // Flipped bits in deflate data can make a stored block whose length
      // runs past the end: that reads as truncation. Everything else is damage.
      bool damaged_msg =
          error.rfind("pieces: gzip stream is damaged at compressed byte offset ", 0) == 0;
      bool truncated_msg =
          error.rfind("pieces: gzip stream ends early (truncated) at compressed byte offset ",
                      0) == 0;
      ASSERT_TRUE(damaged_msg || truncated_msg) << "byte " << at << ": " << error;
      uint64_t offset = std::stoull(error.substr(error.find("offset ") + 7));
      EXPECT_GE(offset, first.size()) << error;
      EXPECT_LE(offset, first.size() + second.size()) << error;
      if (at >= second.size() - 8) {
        // A bad CRC-32 or length is caught at the trailer, after the whole
        // member's bytes were delivered.
        EXPECT_TRUE(damaged_msg) << error;
        EXPECT_TRUE(got == good + sample(17, 5000)) << at;
        EXPECT_GE(offset, first.size() + second.size() - 4) << error;
      }
    }
  }
}

TEST_F(IoReader, TruncatedSecondGzipMemberInSmallReads) {
  // Cuts in the second member's header, data and trailer, with raw reads
  // small enough that the cut lands inside the decoder's own buffers.
  std::string a = sample(18, 500), b = sample(19, 500);
  std::string first = gzip(a), second = gzip(b);
  for (size_t keep : {size_t{1}, size_t{2}, size_t{5}, size_t{10}, second.size() / 2,
                      second.size() - 8, second.size() - 1}) {
    std::string cut = first + second.substr(0, keep);
    std::string error;
    std::string got = decode_in_pieces(cut, 3, 4096, &error);
    EXPECT_TRUE(got.compare(0, a.size(), a) == 0) << keep;
    EXPECT_EQ(error, "pieces: gzip stream ends early (truncated) at compressed byte offset " +
                         std::to_string(cut.size()) + ".")
        << keep;
    if (keep >= second.size() - 8) {
      EXPECT_TRUE(got == a + b) << keep;
    }
  }
}

TEST_F(IoReader, TrailingGarbageAfterGzipInSmallReadsIsDamage) {
  // Too short for a gzip header, and arriving a byte at a time: still damage
  // at the first byte that cannot start a member, not truncation. (Zeros are
  // padding: io_formats_test.cpp.)
  std::string z = gzip("a\nb\n");
  for (const std::string& junk : {std::string("j"), std::string("junk"), std::string("\x1f"
                                                                                      "junk")}) {
    for (size_t piece : {size_t{1}, size_t{1} << 20}) {
      std::string error;
      std::string got = decode_in_pieces(z + junk, piece, 65536, &error);
      EXPECT_EQ(got, "a\nb\n");
      size_t bad = z.size() + (junk[0] == '\x1f' ? 1 : 0);
      EXPECT_EQ(error, "pieces: gzip stream is damaged at compressed byte offset " +
                           std::to_string(junk[0] == '\x1f' && piece == 1 ? bad : z.size()) +
                           " (no gzip member starts here).")
          << piece;
    }
  }
}

// A file truncated, grown or rewritten while it is read must not end the
// input as if nothing happened.
TEST_F(IoReader, AFileThatChangesWhileReadFailsAtItsEnd) {
  const std::string text = sample(21, 20000);
  enum Change { kTruncate, kGrow, kRewrite };
  for (Change change : {kTruncate, kGrow, kRewrite}) {
    const std::string path = write("changing", text);
    auto src = open_input(path);
    std::vector<char> buf(4096);
    ASSERT_EQ(src->read(buf.data(), buf.size()), buf.size());
    if (change == kTruncate) {
      fs::resize_file(path, text.size() / 2);
    } else if (change == kGrow) {
      std::ofstream(path, std::ios::app) << "appended\n";
    } else {
      // Same size, other bytes, a later modification time.
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(static_cast<std::streamoff>(text.size()) - 2);
      f << 'Z';
    }
    std::string error;
    try {
      while (src->read(buf.data(), buf.size()) > 0) {
      }
    } catch (const Error& e) {
      error = e.what();
    }
    EXPECT_EQ(error.rfind("input " + path + " ", 0), 0u) << change << ": " << error;
    EXPECT_NE(error.find(change == kRewrite ? "was modified while it was being read"
                                            : "changed size while it was being read"),
              std::string::npos)
        << change << ": " << error;
  }
  // Unchanged, the same file ends quietly.
  EXPECT_EQ(drain(*open_input(write("still", text))), text);
}

TEST_F(IoReader, UnreadablePathsNameThePathAndTheReason) {
  std::string missing = (dir_ / "missing.txt").string();
  try {
    open_input(missing);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot open input " + missing + ": No such file or directory.");
  }
  try {
    MultiSource({dir_.string()});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot open input " + dir_.string() + ": Is a directory.");
  }
  EXPECT_THROW(check_readable(missing), Error);
  EXPECT_THROW(input_size(dir_.string()), Error);
  EXPECT_THROW(input_size(missing), Error);
}

TEST_F(IoReader, LaterMissingInputFailsAfterTheEarlierRecords) {
  std::vector<std::string> paths = {write("a", "a1\na2"), (dir_ / "nope").string()};
  std::string error;
  auto got = records_of(MultiSource(paths), &error);
  EXPECT_EQ(got, (std::vector<std::string>{"a1", "a2"}));
  EXPECT_NE(error.find("nope: No such file or directory."), std::string::npos) << error;
}

TEST_F(IoReader, InputSize) {
  EXPECT_EQ(input_size(write("five", "12345")), 5u);
  EXPECT_EQ(input_size("-"), std::nullopt);
  EXPECT_EQ(input_size("/dev/null"), std::nullopt);
  check_readable(write("r", "x"));
}

}  // namespace
}  // namespace gdedup::io
