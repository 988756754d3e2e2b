// Pieces of one compressed file (io/compressed_pieces.h): decoded one by one
// and joined in the order next_piece() gives, they must equal the whole-file
// decoder's bytes and error, for every format and piece size, with damage,
// truncation, false boundaries and a file rewritten after planning.
#include "io/compressed_pieces.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "codec_util.h"
#include "file_util.h"
#include "gdedup/error.h"
#include "io/byte_source.h"
#include "io/random_access.h"

namespace gdedup::io {
namespace {

// Random URL-like records of random lengths, some empty.
std::string records(uint64_t seed, size_t count) {
  std::mt19937_64 rng(seed);
  std::string s;
  for (size_t i = 0; i < count; ++i) {
    if (rng() % 50 == 0) {
      s += "\n";
      continue;
    }
    s += "https://h" + std::to_string(rng() % 100000) + ".org/" +
         std::string(rng() % 40, static_cast<char>('a' + rng() % 26)) + "\n";
  }
  return s;
}

struct Decoded {
  std::string data;
  std::string error;
  ErrorKind kind = ErrorKind::failure;
  // After an error: how many bytes of `data` a check had passed. The bytes
  // after those depend on where reads happened to end.
  uint64_t verified = 0;
};

Decoded drain(ByteSource& src, size_t chunk = 1 << 16) {
  Decoded d;
  std::vector<char> buf(chunk);
  try {
    while (size_t n = src.read(buf.data(), buf.size())) d.data.append(buf.data(), n);
  } catch (const Error& e) {
    d.error = e.what();
    d.kind = e.kind();
    d.verified = std::min<uint64_t>(src.verified_bytes(), d.data.size());
  }
  return d;
}

struct Joined : Decoded {
  size_t pieces = 0;
  size_t dropped = 0;  // pieces that started at a false boundary
};

// Decodes every piece on its own (as workers would, several at once), then
// joins them as an in-order consumer must: from piece 0 on, each piece's
// next_piece() names the one that continues the data; an error ends it.
Joined decode_in_pieces(const std::string& path, uint64_t target, unsigned threads = 3) {
  const auto input = RandomAccessInput::open(path);
  const auto plan = std::make_shared<const PiecePlan>(find_pieces(*input, target));
  const size_t n = plan->ranges.size();
  std::vector<Decoded> out(n);
  std::vector<size_t> next(n);
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      for (size_t i = t; i < n; i += threads) {
        CompressedPieceSource piece(*input, plan, i);
        out[i] = drain(piece, 4096 + i);
        next[i] = out[i].error.empty() ? piece.next_piece() : n;
      }
    });
  }
  for (std::thread& w : workers) w.join();
  Joined joined;
  joined.pieces = n;
  for (size_t i = 0; i < n; i = next[i]) {
    if (!out[i].error.empty()) {
      joined.verified = joined.data.size() + out[i].verified;
      joined.error = out[i].error;
      joined.kind = out[i].kind;
    }
    joined.data += out[i].data;
    joined.dropped += next[i] - i - 1;
  }
  return joined;
}

class CompressedPieces : public test::TempDirTest {
 protected:
  CompressedPieces() : TempDirTest("compressed_pieces") {}
  std::string write(const std::string& name, const std::string& bytes) {
    const std::string p = path(name);
    std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
    return p;
  }
  static Decoded whole(const std::string& p) { return drain(*open_input(p)); }

  // Joined pieces equal the whole-file decode, bytes and error, for piece
  // sizes from 1 byte (a piece per member) to larger than the file.
  void expect_pieces_match(const std::string& p, const std::string& what) {
    const Decoded reference = whole(p);
    for (uint64_t target : {1, 7, 1000, 30000, 100000, 1 << 30}) {
      const Joined joined = decode_in_pieces(p, target);
      const std::string& a = joined.data;
      const std::string& b = reference.data;
      const size_t same = static_cast<size_t>(
          std::mismatch(a.begin(), a.end(), b.begin(), b.end()).first - a.begin());
      if (reference.error.empty()) {
        EXPECT_TRUE(a == b) << what << ", target " << target << ": " << a.size()
                            << " bytes against " << b.size() << ", the same up to " << same;
      } else {
        // Damaged data: the same verified bytes, and nothing after them
        // that the other decode contradicts.
        EXPECT_EQ(joined.verified, reference.verified) << what << ", target " << target;
        EXPECT_EQ(same, std::min(a.size(), b.size())) << what << ", target " << target;
      }
      EXPECT_EQ(joined.error, reference.error) << what << ", target " << target;
      EXPECT_EQ(joined.kind, reference.kind) << what << ", target " << target;
    }
  }
};

TEST_F(CompressedPieces, SplitFormatsJoinToTheWholeFile) {
  const std::string text = records(1, 30000);
  struct Case {
    const char* name;
    std::string bytes;
    size_t members;  // pieces at a target of 1 byte
  };
  const Case cases[] = {
      {"bgzf", test::bgzf(text), test::chunks(text, 60000).size() + 1},
      {"gzip members", test::gzip_members(text, 50000), test::chunks(text, 50000).size()},
      {"zstd frames", test::zstd_frames(text, 70000), test::chunks(text, 70000).size()},
      {"pzstd", test::zstd_frames(text, 70000, true), 2 * test::chunks(text, 70000).size()},
      {"seekable zstd", test::zstd_frames(text, 70000, false, true),
       test::chunks(text, 70000).size() + 1},
  };
  for (const Case& c : cases) {
    const std::string p = write("in", c.bytes);
    ASSERT_EQ(whole(p).data, text) << c.name;
    expect_pieces_match(p, c.name);
    // A well-formed file: one piece per member or frame, none dropped, so
    // the work really is split.
    const Joined fine = decode_in_pieces(p, 1);
    EXPECT_EQ(fine.pieces, c.members) << c.name;
    EXPECT_EQ(fine.dropped, 0u) << c.name;
    EXPECT_EQ(decode_in_pieces(p, 1 << 30).pieces, 1u) << c.name;
  }
}

TEST_F(CompressedPieces, UnsplittableFormatsAreOnePiece) {
  const std::string text = records(2, 20000);
  const std::pair<const char*, std::string> cases[] = {
      {"gzip", test::gzip(text)},
      {"zstd", test::zstd(text)},
      {"xz", test::xz(text)},
      {"bzip2", test::bzip2(text)},
      {"lz4", test::lz4(text)},
      {"plain", text},
      {"empty", ""},
      {"lz4 after a skippable frame", test::skippable_frame("x") + test::lz4(text)},
  };
  for (const auto& [name, bytes] : cases) {
    const std::string p = write("in", bytes);
    const Joined joined = decode_in_pieces(p, 1);
    EXPECT_EQ(joined.pieces, 1u) << name;
    EXPECT_EQ(joined.data, text.substr(0, bytes.empty() ? 0 : text.size())) << name;
    EXPECT_EQ(joined.error, "") << name;
  }
}

// A complete gzip member stored verbatim inside another member's data
// (level 0 stores its input): the scan takes it for a member start, the
// piece before it reads on past it, and the output does not change.
TEST_F(CompressedPieces, AGzipHeaderInsideAMemberChangesNothing) {
  const std::string inner = test::gzip(records(3, 2000));
  const std::string payload = records(4, 3000) + inner + records(5, 3000);
  const std::string p = write("planted.gz", test::gzip(payload, 0) + test::gzip(records(6, 5000)));
  const Decoded reference = whole(p);
  ASSERT_EQ(reference.error, "");
  const Joined joined = decode_in_pieces(p, 1000);
  EXPECT_GT(joined.dropped, 0u) << "the planted header was not taken for a boundary";
  EXPECT_EQ(joined.data, reference.data);
  EXPECT_EQ(joined.error, "");
  expect_pieces_match(p, "planted member");
}

// Members in a file several times the scan's 1 MiB window: stored data
// keeps it large, so the scan crosses window edges many times.
TEST_F(CompressedPieces, TheScanCrossesItsWindows) {
  const std::string text = records(14, 120000);
  std::string bytes;
  for (const std::string& c : test::chunks(text, 300000)) bytes += test::gzip(c, 0);
  ASSERT_GT(bytes.size(), size_t{4} << 20);
  const std::string p = write("stored.gz", bytes);
  for (uint64_t target : {1, 1 << 20}) {
    const Joined joined = decode_in_pieces(p, target);
    EXPECT_TRUE(joined.data == text) << target;
    EXPECT_EQ(joined.dropped, 0u) << target;
    EXPECT_GT(joined.pieces, 2u) << target;
  }
}

// Stored data made of header patterns: every 4 bytes a candidate that fails
// its trial. The scan gives up after a bounded number and the file still
// decodes the same.
TEST_F(CompressedPieces, HeaderPatternsEverywhereChangeNothing) {
  std::string patterns;
  while (patterns.size() < (size_t{1} << 20)) patterns += std::string("\x1f\x8b\x08\x00", 4);
  const std::string p =
      write("patterns.gz", test::gzip(patterns, 0) + test::gzip(records(13, 100)));
  const Decoded reference = whole(p);
  ASSERT_EQ(reference.error, "");
  const Joined joined = decode_in_pieces(p, 1);
  EXPECT_TRUE(joined.data == reference.data);
  EXPECT_EQ(joined.error, "");
}

// BSIZE is outside every checksum: a member whose BSIZE lies still decodes
// whole, and so must it in pieces.
TEST_F(CompressedPieces, ALyingBgzfLengthChangesNothing) {
  const std::string text = records(7, 20000);
  for (int delta : {-9, 9}) {
    std::string bytes = test::bgzf(text, 20000);
    const size_t second = 16;  // BSIZE of the first member, little-endian
    const unsigned bsize = static_cast<unsigned char>(bytes[second]) |
                           static_cast<unsigned char>(bytes[second + 1]) << 8;
    bytes[second] = static_cast<char>((bsize + delta) & 0xff);
    bytes[second + 1] = static_cast<char>((bsize + delta) >> 8);
    const std::string p = write("lie.bgz", bytes);
    ASSERT_EQ(whole(p).data, text);
    expect_pieces_match(p, "BSIZE " + std::to_string(delta));
  }
}

TEST_F(CompressedPieces, DamageGivesTheWholeFileError) {
  const std::string text = records(8, 30000);
  const std::pair<const char*, std::string> cases[] = {
      {"bgzf", test::bgzf(text, 30000)},
      {"gzip members", test::gzip_members(text, 30000)},
      {"zstd frames", test::zstd_frames(text, 30000)},
  };
  for (const auto& [name, good] : cases) {
    // Bytes flipped in the middle member or frame, then at its very start.
    for (size_t at : {good.size() / 2, good.size() / 2 + 7}) {
      std::string bad = good;
      for (size_t i = 0; i < 8; ++i) bad[at + i] ^= 0x5a;
      const std::string p = write("bad", bad);
      const Decoded reference = whole(p);
      ASSERT_EQ(reference.kind, ErrorKind::damaged) << name << ": " << reference.error;
      expect_pieces_match(p, std::string(name) + " damaged at " + std::to_string(at));
    }
  }
}

TEST_F(CompressedPieces, TruncationGivesTheWholeFileError) {
  const std::string text = records(9, 30000);
  const std::pair<const char*, std::string> cases[] = {
      {"bgzf", test::bgzf(text, 30000)},
      {"gzip members", test::gzip_members(text, 30000)},
      {"zstd frames", test::zstd_frames(text, 30000, true)},
  };
  for (const auto& [name, good] : cases) {
    for (size_t keep : {good.size() / 3, good.size() - 1, size_t{5}}) {
      const std::string p = write("cut", good.substr(0, keep));
      ASSERT_EQ(whole(p).kind, ErrorKind::damaged) << name << " cut at " << keep;
      expect_pieces_match(p, std::string(name) + " cut at " + std::to_string(keep));
    }
  }
}

TEST_F(CompressedPieces, TrailingBytesGiveTheWholeFileError) {
  const std::string text = records(10, 20000);
  for (const std::string& tail : {std::string(300, '\0'), std::string("junk\n")}) {
    const std::string both[] = {test::bgzf(text, 20000), test::zstd_frames(text, 20000)};
    for (const std::string& bytes : both) {
      expect_pieces_match(write("tail", bytes + tail), "trailing " + tail.substr(0, 4));
    }
  }
}

TEST_F(CompressedPieces, AFileChangedAfterPlanningFailsLoudly) {
  const std::string text = records(11, 20000);
  const std::string bytes = test::bgzf(text, 20000);
  const std::string p = write("changing.bgz", bytes);
  const auto input = RandomAccessInput::open(p);
  const auto plan = std::make_shared<const PiecePlan>(find_pieces(*input, 1));
  ASSERT_GT(plan->ranges.size(), 2u);
  // Grown: every piece, even one whose bytes are intact, says so at its end.
  std::ofstream(p, std::ios::binary | std::ios::app) << bytes;
  for (size_t i : {size_t{0}, plan->ranges.size() - 1}) {
    CompressedPieceSource piece(*input, plan, i);
    const Decoded d = drain(piece);
    EXPECT_EQ(d.kind, ErrorKind::input_changed) << i << ": " << d.error;
    EXPECT_NE(d.error.find("changed size while it was being read"), std::string::npos) << d.error;
  }
  // Shrunk below a piece: no truncation error, the change is named.
  std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes.substr(0, bytes.size() / 2);
  CompressedPieceSource last(*input, plan, plan->ranges.size() - 1);
  EXPECT_EQ(drain(last).kind, ErrorKind::input_changed);
  // Same size, rewritten (a new modification time).
  std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
  const auto same = RandomAccessInput::open(p);
  const auto replan = std::make_shared<const PiecePlan>(find_pieces(*same, 1));
  const struct timespec times[2] = {{0, UTIME_OMIT}, {12345, 0}};
  ASSERT_EQ(utimensat(AT_FDCWD, p.c_str(), times, 0), 0);
  CompressedPieceSource piece(*same, replan, 1);
  const Decoded d = drain(piece);
  EXPECT_EQ(d.kind, ErrorKind::input_changed) << d.error;
  EXPECT_NE(d.error.find("was modified while it was being read"), std::string::npos) << d.error;
}

TEST_F(CompressedPieces, BadRequestsAreRefused) {
  const std::string p = write("in.bgz", test::bgzf(records(12, 100)));
  const auto input = RandomAccessInput::open(p);
  try {
    find_pieces(*input, 0);
    FAIL() << "a target of 0 bytes was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::invalid_argument);
    EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
  }
  const auto plan = std::make_shared<const PiecePlan>(find_pieces(*input, 1));
  EXPECT_THROW(CompressedPieceSource(*input, plan, plan->ranges.size()), Error);
  // A refused format is refused by its piece as by open_input().
  const std::string lzip = write("in.lz", "LZIP\x01 not really");
  const auto lz = RandomAccessInput::open(lzip);
  const auto lz_plan = std::make_shared<const PiecePlan>(find_pieces(*lz, 1));
  try {
    CompressedPieceSource piece(*lz, lz_plan, 0);
    FAIL() << "lzip data was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::unsupported_format);
  }
}

}  // namespace
}  // namespace gdedup::io
